/**
 * The one place that loads @peculiar/x509: installs the Reflect metadata functions its
 * dependency tsyringe requires, and points it at Node's WebCrypto. Import X.509 helpers from
 * here, never from '@peculiar/x509' directly.
 */
import './reflect-metadata.js'
import { webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0])

export { x509 }
