/**
 * The certificates the manager knows: its CA, the certificate of every generated agent, and
 * certificates issued by addagent. Per-agent data stays sparse: a generated agent's
 * certificate is derived on demand from the fleet (its fingerprint is in the agent's
 * configuration); only certificates that were issued, shared, revoked or outlived their agent
 * are kept in a map.
 *
 * Ids: the CA is 1; an agent's certificate is its agent index + 2 (within a run a certificate
 * is issued for exactly one agent index, and indices are not reused, so these never collide and
 * are stable across restarts with the same seed). A reset starts a new run whose agents take the
 * indices from 0 again, while the manager keeps its certificates: a kept certificate that is not
 * the new run's agent's at its index then moves to an id above every agent slot of the run (the
 * fleet's capacity + 2, room for added agents included), from a counter that only grows and is
 * saved in the state file, so no id is handed out twice. A resumed run with more slots than the
 * saved one moves such ids above its own slots the same way.
 */
import { createHash } from 'node:crypto'
import type { Fleet } from '../fleet/fleet-api.js'
import { displayFingerprint, normaliseFingerprint, type CaInfo } from '../tls/ca-info.js'
import { apiError } from '../protocol/errors.js'
import { formatLocalMinute } from './time-format.js'

const DAY_MS = 86_400_000
const UNTRUSTED: ReadonlySet<'UNTRUSTED'> = new Set(['UNTRUSTED'])
/** Validity of agent certificates. */
export const AGENT_CERT_DAYS = 730

export type CertificateStatus = 'VALID' | 'REVOKED' | 'EXPIRED'

export interface Certificate {
  /** normalised fingerprint */
  fingerprint: string
  name: string
  id: number
  notBefore: number
  notAfter: number
  revoked: boolean
  isCa: boolean
}

/** One item of certificateinfo (kebab-case keys, as the real manager's). */
export interface CertificateRecord {
  name: string
  country: string
  state: string
  city: string
  organization: string
  'organization-unit': string
  activation: string
  expiration: string
  'use-as-default-ca': boolean
  status: CertificateStatus
  id: number
  issuer: string
  subject: string
  'serial-number': string
  'sig-alg-name': string
  type: 'CA' | 'CERT'
  fingerprint: string
}

interface SubjectDefaults {
  country: string
  state: string
  city: string
  organization: string
  organizationUnit: string
}

/** The registry as plain data, for the state file (the CA comes from the TLS files). */
export interface CertificatesSnapshot {
  issued: number
  certificates: Certificate[]
  /** ids below it are agent indices + 2 of the saved run (absent in states saved before it) */
  floor?: number
  /** the id the next certificate moved out of the agents' ids gets (absent as floor) */
  nextId?: number
}

export class CertificateRegistry {
  private readonly explicit = new Map<string, Certificate>()
  private readonly caCert: Certificate
  private readonly defaults: SubjectDefaults
  private issued = 0
  /** the fleet run whose agent indices the kept ids below `floor` are (Fleet.run) */
  private run: number
  /** kept ids below it are index + 2 of an agent of `run`; those from it on came from nextId */
  private floor: number
  /** the next id for a certificate moved out of the agents' ids (only grows) */
  private nextId: number

  snapshot(): CertificatesSnapshot {
    this.sync()
    return { issued: this.issued, certificates: structuredClone([...this.explicit.values()]), floor: this.floor, nextId: this.nextId }
  }

  /** Puts saved certificates back; the fleet is the saved run, resumed (its slots may differ). */
  restore(saved: CertificatesSnapshot): void {
    this.explicit.clear()
    this.issued = saved.issued
    for (const cert of structuredClone(saved.certificates)) this.explicit.set(cert.fingerprint, cert)
    this.run = this.fleet.run
    // A state saved before ids were moved has neither: its kept ids are all agent indices + 2.
    this.floor = saved.floor ?? this.fleet.capacity + 2
    this.nextId = Math.max(saved.nextId ?? 0, this.floor, this.highestId() + 1)
    this.sync()
  }

  constructor(
    private readonly fleet: Fleet,
    private readonly ca: CaInfo
  ) {
    this.caCert = {
      fingerprint: normaliseFingerprint(ca.fingerprint),
      name: commonName(ca.subject),
      id: 1,
      notBefore: ca.notBefore.getTime(),
      notAfter: ca.notAfter.getTime(),
      revoked: false,
      isCa: true
    }
    this.defaults = subjectDefaults(ca.subject)
    this.run = fleet.run
    this.floor = fleet.capacity + 2
    this.nextId = this.floor
  }

  /** The CA fingerprint in display form, as addagent's ca-fingerprint must carry it. */
  get caFingerprint(): string {
    return displayFingerprint(this.caCert.fingerprint)
  }

  /** E_UNKNOWN_CA_FINGERPRINT unless the text is the CA's fingerprint (any case, colons or not). */
  requireCa(fingerprint: string): void {
    if (normaliseFingerprint(fingerprint) !== this.caCert.fingerprint) {
      throw apiError('E_UNKNOWN_CA_FINGERPRINT', { got: fingerprint, expected: this.caFingerprint })
    }
  }

  /**
   * The certificate a client wants to assign: must exist, be an agent certificate, not be
   * revoked, and be no other agent's: a certificate identifies one agent, and revoking it (deleteagent
   * with revokeCert) must not leave a second agent connected on it. `modified`: the agent
   * modifyagent changes, which may keep its own; undefined for addagent's new agent. Returns its
   * name (addagent's default agent name) and normalised fingerprint.
   */
  requireAssignable(fingerprint: string, modified?: number): { name: string; fingerprint: string } {
    const omit = modified === undefined ? 'omit cert-fingerprint to have one issued' : "omit cert-fingerprint to keep the agent's certificate"
    const cert = this.find(fingerprint)
    if (cert === undefined) throw apiError('E_UNKNOWN_CERT_FINGERPRINT', { got: fingerprint, omit })
    if (cert.isCa) throw apiError('E_CA_NOT_ASSIGNABLE', { got: fingerprint, omit })
    if (cert.revoked) throw apiError('E_CERTIFICATE_REVOKED', { got: fingerprint, omit })
    const holder = this.fleet.findByCertFingerprint(cert.fingerprint)
    if (holder !== undefined && holder !== modified) throw apiError('E_CERTIFICATE_IN_USE', { got: fingerprint, agent: this.fleet.name(holder), omit })
    return { name: cert.name, fingerprint: cert.fingerprint }
  }

  /**
   * A certificate issued to a new agent is kept from now on. Its fingerprint is the SHA-1 of a
   * text unique to this issue, so it never repeats.
   */
  issue(name: string): string {
    const fingerprint = createHash('sha1')
      .update(`fleetsim-certificate\0${name}\0${this.issued++}\0${this.fleet.now()}\0${this.caCert.fingerprint}`)
      .digest('hex')
    const now = this.fleet.now()
    this.explicit.set(fingerprint, {
      fingerprint,
      name,
      id: -1,
      notBefore: now,
      notAfter: now + AGENT_CERT_DAYS * DAY_MS,
      revoked: false,
      isCa: false
    })
    return fingerprint
  }

  /** Gives an issued certificate the id of the agent it was issued for. */
  bind(fingerprint: string, index: number): void {
    this.sync()
    const cert = this.explicit.get(normaliseFingerprint(fingerprint))
    if (cert !== undefined && cert.id === -1) cert.id = index + 2
  }

  /** Drops an issued certificate whose agent could not be created. */
  discard(fingerprint: string): void {
    const cert = this.explicit.get(normaliseFingerprint(fingerprint))
    if (cert !== undefined && cert.id === -1) this.explicit.delete(cert.fingerprint)
  }

  /**
   * Keeps a derived certificate explicitly, e.g. before its agent is deleted or when a second
   * agent is given it (so it is listed once, whatever the agents do next).
   */
  keep(fingerprint: string): void {
    this.sync()
    const cert = this.find(fingerprint)
    if (cert !== undefined && !cert.isCa) this.explicit.set(cert.fingerprint, cert)
  }

  revoke(fingerprint: string): void {
    this.keep(fingerprint)
    const cert = this.explicit.get(normaliseFingerprint(fingerprint))
    if (cert !== undefined) cert.revoked = true
  }

  status(fingerprint: string): CertificateStatus | undefined {
    const cert = this.find(fingerprint)
    return cert === undefined ? undefined : this.statusOf(cert)
  }

  /**
   * Every certificate, the CA first, optionally only those not yet expired that expire within
   * `withinDays`, except those of UNTRUSTED agents. Lazy, so a million agents are listed
   * without a million-item array (only the UNTRUSTED agents' indices are collected first).
   */
  *list(withinDays?: number): Generator<CertificateRecord> {
    this.sync()
    const now = this.fleet.now()
    const limit = withinDays === undefined ? Infinity : now + withinDays * DAY_MS
    const wanted = (cert: Certificate): boolean => withinDays === undefined || (cert.notAfter >= now && cert.notAfter <= limit)
    // UNTRUSTED means connected without its own certificate (a new install until the manager
    // issues it, a scenario's or override's agent until something fixes it): such an agent's
    // certificate is not listed, as a VALID one would contradict its state.
    const untrusted = new Set(this.fleet.indices(UNTRUSTED))
    const withoutOwn = (cert: Certificate): boolean => {
      const index = cert.id - 2
      return untrusted.has(index) && normaliseFingerprint(this.fleet.config(index).certFingerprint) === cert.fingerprint
    }
    if (wanted(this.caCert)) yield this.record(this.caCert, now)
    for (const cert of this.explicit.values()) if (wanted(cert) && !withoutOwn(cert)) yield this.record(cert, now)
    for (const index of this.fleet.indices()) {
      const fingerprint = normaliseFingerprint(this.fleet.config(index).certFingerprint)
      if (this.explicit.has(fingerprint) || fingerprint === this.caCert.fingerprint || untrusted.has(index)) continue
      const cert = this.derived(index, fingerprint)
      if (wanted(cert)) yield this.record(cert, now)
    }
  }

  /** The certificateinfo record of the certificate with this fingerprint, or undefined when the manager has none. */
  recordOf(fingerprint: string): CertificateRecord | undefined {
    this.sync()
    const cert = this.find(fingerprint)
    return cert === undefined ? undefined : this.record(cert, this.fleet.now())
  }

  /**
   * Moves kept ids out of the way when agent indices changed meaning since the last call: after
   * a reset (a new run), a kept id below the floor that is not the certificate of the new run's
   * agent at its index, and any moved id the new run's slots reach; after a resume with more
   * slots, the moved ids those reach. Lazy, so every way of resetting the fleet is covered;
   * cheap when nothing changed (two numbers compared).
   */
  private sync(): void {
    const { run } = this.fleet
    const floor = this.fleet.capacity + 2
    const newRun = run !== this.run
    // A resumed run with fewer slots keeps the floor it had: the ids between are nobody's.
    if (!newRun && floor <= this.floor) return
    this.nextId = Math.max(this.nextId, floor)
    for (const cert of this.explicit.values()) {
      // -1: issued, not bound yet (bind gives it its agent's index + 2).
      if (cert.id < 2) continue
      const moved = cert.id >= this.floor
      if (moved ? cert.id < floor : newRun && !this.isAgentsOwn(cert)) cert.id = this.nextId++
    }
    this.run = run
    this.floor = floor
  }

  /** The highest id a kept certificate has (a loop: there may be more than a call takes arguments). */
  private highestId(): number {
    let highest = 0
    for (const cert of this.explicit.values()) highest = Math.max(highest, cert.id)
    return highest
  }

  /**
   * Whether a kept certificate is the one the run's agent at its index has from the start (the
   * same seed gives the same fingerprints), so it keeps index + 2: read from the agent's
   * configuration, which is the new run's from the start of a reset, built or not.
   */
  private isAgentsOwn(cert: Certificate): boolean {
    const index = cert.id - 2
    return index < this.fleet.capacity && normaliseFingerprint(this.fleet.config(index).certFingerprint) === cert.fingerprint
  }

  private find(fingerprint: string): Certificate | undefined {
    const normal = normaliseFingerprint(fingerprint)
    if (normal === this.caCert.fingerprint) return this.caCert
    const kept = this.explicit.get(normal)
    if (kept !== undefined) return kept
    const index = this.fleet.findByCertFingerprint(normal)
    return index === undefined ? undefined : this.derived(index, normal)
  }

  private derived(index: number, fingerprint: string): Certificate {
    const notBefore = this.caCert.notBefore
    return {
      fingerprint,
      name: this.fleet.name(index),
      id: index + 2,
      notBefore,
      notAfter: notBefore + AGENT_CERT_DAYS * DAY_MS,
      revoked: false,
      isCa: false
    }
  }

  private statusOf(cert: Certificate, now = this.fleet.now()): CertificateStatus {
    if (cert.revoked) return 'REVOKED'
    return cert.notAfter < now ? 'EXPIRED' : 'VALID'
  }

  private record(cert: Certificate, now: number): CertificateRecord {
    const d = this.defaults
    return {
      name: cert.name,
      country: d.country,
      state: d.state,
      city: d.city,
      organization: d.organization,
      'organization-unit': d.organizationUnit,
      activation: formatLocalMinute(cert.notBefore),
      expiration: formatLocalMinute(cert.notAfter),
      'use-as-default-ca': cert.isCa,
      status: this.statusOf(cert, now),
      id: cert.id,
      issuer: this.ca.subject,
      subject: cert.isCa ? this.ca.subject : agentSubject(cert.name, d),
      'serial-number': cert.isCa ? this.ca.serialNumber : cert.fingerprint.slice(0, 16).toUpperCase(),
      'sig-alg-name': this.ca.sigAlgName,
      type: cert.isCa ? 'CA' : 'CERT',
      fingerprint: displayFingerprint(cert.fingerprint)
    }
  }
}

/** `CN=fleetsim CA,O=fleetsim` → attribute map (simple DNs; escaped commas are kept). */
function parseDn(dn: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const part of dn.split(/(?<!\\),/)) {
    const eq = part.indexOf('=')
    if (eq > 0) out.set(part.slice(0, eq).trim().toUpperCase(), part.slice(eq + 1).trim().replace(/\\,/g, ','))
  }
  return out
}

function commonName(dn: string): string {
  return parseDn(dn).get('CN') ?? dn
}

function subjectDefaults(dn: string): SubjectDefaults {
  const parts = parseDn(dn)
  return {
    country: parts.get('C') ?? '',
    state: parts.get('ST') ?? '',
    city: parts.get('L') ?? '',
    organization: parts.get('O') ?? '',
    organizationUnit: parts.get('OU') ?? ''
  }
}

function agentSubject(name: string, d: SubjectDefaults): string {
  const parts = [`CN=${name.replace(/,/g, '\\,')}`]
  if (d.organizationUnit !== '') parts.push(`OU=${d.organizationUnit}`)
  if (d.organization !== '') parts.push(`O=${d.organization}`)
  if (d.city !== '') parts.push(`L=${d.city}`)
  if (d.state !== '') parts.push(`ST=${d.state}`)
  if (d.country !== '') parts.push(`C=${d.country}`)
  return parts.join(',')
}
