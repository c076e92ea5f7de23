/**
 * TLS material for a bench run's HTTPS listeners: a CA and a server certificate for 127.0.0.1,
 * made by fleetsim's own TLS store in `dir`, as the files the target processes read.
 */
import { join } from 'node:path'
import { loadOrCreateTls, TLS_DIR, TLS_FILES } from '../../src/tls/tls-store.js'
import type { TlsFiles } from './protocol.js'

export async function benchTls(dir: string): Promise<{ files: TlsFiles; caFingerprint: string }> {
  const tls = await loadOrCreateTls({ dataDir: dir, hosts: ['127.0.0.1'] })
  return {
    files: { keyFile: join(dir, TLS_DIR, TLS_FILES.serverKey), certFile: join(dir, TLS_DIR, TLS_FILES.server) },
    caFingerprint: tls.ca.fingerprint
  }
}
