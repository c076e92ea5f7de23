/**
 * The one place that loads @peculiar/x509: installs the Reflect metadata API its dependency
 * tsyringe checks for when it loads (the `reflect-metadata` polyfill, imported first: ESM
 * evaluates imports in order), and points it at Node's WebCrypto. Import X.509 helpers from
 * here, never from '@peculiar/x509' directly.
 */
import 'reflect-metadata'
import { webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0])

export { x509 }
