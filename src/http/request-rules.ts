/**
 * Request rules (validation.ts, withRules) that more than one operation applies: rules of a
 * request's content that its schema cannot state, checked with the schema so that every failed
 * rule is reported together.
 */
import type { CertificateRegistry } from '../manager/certificates.js'
import { ApiError } from '../protocol/errors.js'
import { fieldsOf, type RequestRule } from './validation.js'

/** global-config.ca-fingerprint, when the body has one, must be the manager's CA (agents, master templates). */
export const caRule =
  (certificates: CertificateRegistry): RequestRule =>
  (body) => {
    const fingerprint = fieldsOf(fieldsOf(body)?.['global-config'])?.['ca-fingerprint']
    if (typeof fingerprint !== 'string' || fingerprint === '') return undefined
    try {
      certificates.requireCa(fingerprint)
      return undefined
    } catch (error) {
      if (error instanceof ApiError) return error
      throw error
    }
  }
