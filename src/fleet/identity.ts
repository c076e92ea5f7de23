/**
 * The static identity of generated agents, derived from (seed, index) on demand: name,
 * hostname, UUID, certificate fingerprint, addresses, sysinfo. Nothing is stored per agent,
 * so a million agents cost no memory here and any thread can rebuild any agent.
 *
 * Faker is seeded once per fleet seed to build the vocabulary (site codes, domain); per-agent
 * choices are hash draws into it. Names end in the agent's number, and UUIDs and fingerprints
 * start with a keyed permutation of the index, so all three can be turned back into the index
 * without a lookup table (the caller then checks the full value).
 */
import { Faker, en } from '@faker-js/faker'
import { Stream, hash32, permute32, unpermute32 } from './random.js'

const ROLES = ['web', 'app', 'db', 'mail', 'dns', 'proxy', 'files', 'dc', 'build', 'k8s', 'cache', 'log', 'vpn', 'erp', 'backup', 'mon']

/**
 * The port of every generated agent's configuration and service. The spec says only that the
 * port belongs to the configured address; the simulator's agents listen on 4041 (Listen mode),
 * and its manager reports its agent listener on 4041 by default (Connect mode).
 */
export const AGENT_PORT = 4041

const UUID_KEY = 0x5555
const CERT_KEY = 0xce27

export interface Vocabulary {
  sites: string[]
  domain: string
}

export function buildVocabulary(seed: number): Vocabulary {
  const faker = new Faker({ locale: [en] })
  faker.seed(seed)
  const sites = new Set<string>()
  for (let attempts = 0; sites.size < 24 && attempts < 1000; attempts++) {
    const letters = faker.location.city().toLowerCase().replace(/[^a-z]/g, '')
    if (letters.length >= 3) sites.add(letters.slice(0, 3))
  }
  const company = faker.company.name().split(/[^A-Za-z]/)[0].toLowerCase() || 'example'
  return { sites: [...sites], domain: `${company}.${faker.helpers.arrayElement(['corp', 'lan', 'internal'])}` }
}

/** Two hex digits per byte value: an identity is read for every agent of a list, and toString(16) with padding was its largest cost. */
const BYTE_HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'))

/** The last `digits` hex digits of a 32-bit value, zero-padded. */
function hex(value: number, digits: number): string {
  const full = BYTE_HEX[value >>> 24] + BYTE_HEX[(value >>> 16) & 255] + BYTE_HEX[(value >>> 8) & 255] + BYTE_HEX[value & 255]
  return digits === 8 ? full : full.slice(8 - digits)
}

export class Identity {
  readonly vocabulary: Vocabulary
  private readonly uuidKey: number
  private readonly certKey: number

  constructor(readonly seed: number) {
    this.vocabulary = buildVocabulary(seed)
    this.uuidKey = hash32(seed, UUID_KEY)
    this.certKey = hash32(seed, CERT_KEY)
  }

  private draw(i: number, field: number): number {
    return hash32(this.seed, i, field, Stream.IDENTITY)
  }

  /** e.g. `web-lon-000042`: role, site, and the agent number (index + 1) */
  name(i: number): string {
    const role = ROLES[this.draw(i, 1) % ROLES.length]
    const site = this.vocabulary.sites[this.draw(i, 2) % this.vocabulary.sites.length]
    return `${role}-${site}-${String(i + 1).padStart(6, '0')}`
  }

  /** The index a generated name would belong to, if it has the generated form. */
  indexOfName(name: string): number | undefined {
    const match = /-(\d{6,})$/.exec(name)
    if (match === null) return undefined
    const index = Number(match[1]) - 1
    return index >= 0 && this.name(index) === name ? index : undefined
  }

  hostname(name: string): string {
    return `${name}.${this.vocabulary.domain}`
  }

  uuid(i: number): string {
    const head = hex(permute32(i, this.uuidKey), 8)
    const a = this.draw(i, 3)
    const b = this.draw(i, 4)
    const c = this.draw(i, 5)
    // Version 4 layout: the version nibble is 4 and the variant bits are 10.
    return `${head}-${hex(a >>> 16, 4)}-4${hex(a, 3)}-${hex(0x8000 | (b & 0x3fff), 4)}-${hex(b >>> 16, 4)}${hex(c, 8)}`
  }

  indexOfUuid(uuid: string): number | undefined {
    if (!/^[0-9a-f]{8}-/i.test(uuid)) return undefined
    const index = unpermute32(parseInt(uuid.slice(0, 8), 16), this.uuidKey)
    return this.uuid(index) === uuid.toLowerCase() ? index : undefined
  }

  /** SHA-1-sized fingerprint (40 hex digits, normal form) of the agent's certificate */
  certFingerprint(i: number): string {
    let text = hex(permute32(i, this.certKey), 8)
    for (let k = 0; k < 4; k++) text += hex(this.draw(i, 20 + k), 8)
    return text
  }

  /** The index whose fingerprint this is (normal form: 40 lower-case hex digits). */
  indexOfCertFingerprint(normalised: string): number | undefined {
    if (!/^[0-9a-f]{40}$/.test(normalised)) return undefined
    const index = unpermute32(parseInt(normalised.slice(0, 8), 16), this.certKey)
    return this.certFingerprint(index) === normalised ? index : undefined
  }

  /** Most agents report an IPv4 address; about one in seven an IPv6 one. */
  address(i: number): string {
    const n = i + 1
    if (this.draw(i, 6) % 7 === 0) {
      const site = (this.seed & 0xffff).toString(16)
      return `fd00:${site}:${((n >>> 16) & 0xffff).toString(16)}::${(n & 0xffff).toString(16)}`
    }
    return `10.${16 + ((n >>> 16) & 0x7f)}.${(n >>> 8) & 255}.${n & 255}`
  }

  sysinfo(i: number, os: string, family: 'linux' | 'windows'): string {
    const cpus = [2, 4, 4, 8, 8, 16, 32][this.draw(i, 7) % 7]
    const memory = cpus * [2, 4, 8][this.draw(i, 8) % 3]
    if (family === 'windows') {
      const build = os.includes('2019') ? '10.0.17763' : os.includes('11') ? '10.0.22631' : '10.0.20348'
      return `${os} ${build} x64, ${cpus} CPUs, ${memory} GiB RAM`
    }
    const kernel = `${[5, 5, 6][this.draw(i, 9) % 3]}.${this.draw(i, 10) % 19}.0-${this.draw(i, 11) % 120}`
    return `${os}, Linux ${kernel} x86_64, ${cpus} CPUs, ${memory} GiB RAM`
  }
}
