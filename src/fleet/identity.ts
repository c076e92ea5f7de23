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
// The English locale's entry alone: the package's main entry loads every locale it has, and the
// server's RSS after building a fleet was about 30 MB more with it (CHANGELOG, "Changed").
import { faker } from '@faker-js/faker/locale/en'
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
  // One instance for the process, seeded anew for each vocabulary: it is used nowhere else, and
  // the draws below run to their end without a turn of the event loop between them.
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

/** The ASCII codes of the hex digits. */
const HEX_DIGIT = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0))
const DASH = 45
const ZERO = 48

function isDigit(code: number): boolean {
  return code >= ZERO && code <= ZERO + 9
}

/** Writes the last `digits` hex digits of a 32-bit value, zero-padded, at `at`; returns where they end. */
function writeHex(value: number, digits: number, into: Uint8Array, at: number): number {
  for (let k = digits - 1; k >= 0; k--) {
    into[at + k] = HEX_DIGIT[value & 15]
    value >>>= 4
  }
  return at + digits
}

/** Powers of ten up to 10^16, for counting a number's digits (`10 ** k` is a call to Math.pow). */
const POWERS_OF_TEN = Array.from({ length: 17 }, (_, k) => 10 ** k)

/** How many digits a whole number from 0 up to 2^53 has. */
function decimalDigits(n: number): number {
  let digits = 1
  while (digits < 16 && POWERS_OF_TEN[digits] <= n) digits++
  return digits
}

/** Writes a whole number from 0 up to 2^53, with at least `width` digits (zeros first); returns where it ends. */
function writeDecimal(n: number, into: Uint8Array, at: number, width = 1): number {
  let digits = decimalDigits(n)
  if (digits < width) digits = width
  for (let k = digits - 1; k >= 0; k--) {
    const rest = Math.floor(n / 10)
    into[at + k] = 48 + (n - rest * 10)
    n = rest
  }
  return at + digits
}

/** Writes an ASCII string; returns where it ends. */
function writeAscii(text: string, into: Uint8Array, at: number): number {
  for (let k = 0; k < text.length; k++) into[at + k] = text.charCodeAt(k)
  return at + text.length
}

export class Identity {
  readonly vocabulary: Vocabulary
  private readonly uuidKey: number
  private readonly certKey: number
  private pairCache = new Uint16Array(0)
  private pairsKnown = 0
  private readonly namePrefixes: Uint8Array[] = []

  constructor(readonly seed: number) {
    this.vocabulary = buildVocabulary(seed)
    this.uuidKey = hash32(seed, UUID_KEY)
    this.certKey = hash32(seed, CERT_KEY)
  }

  private draw(i: number, field: number): number {
    return hash32(this.seed, i, field, Stream.IDENTITY)
  }

  /** e.g. `web-lon-000042`: role, site, and the agent number (index + 1), of at least six digits */
  name(i: number): string {
    const role = ROLES[this.draw(i, 1) % ROLES.length]
    const site = this.vocabulary.sites[this.draw(i, 2) % this.vocabulary.sites.length]
    return `${role}-${site}-${String(i + 1).padStart(6, '0')}`
  }

  /**
   * The identity's texts as ASCII bytes, written at `at` in `into` (room for fleet-api.ts's
   * MAX_GENERATED_BYTES needed); each returns where its text ends. A list of more agents than are
   * kept writes its items from these, with no string made (src/http/item-bytes.ts): made as
   * strings, the texts are joined from pieces, and flattening and encoding them was most of such
   * an item's cost.
   * Why not the strings read back from these: reading bytes back into a string took longer than
   * joining it (a scratch loop over 100k names, not kept). test/fleet/identity.unit.test.ts holds
   * each writer to its string method.
   */
  writeName(i: number, into: Uint8Array, at: number): number {
    // The pair drawn here, not read from pairOf's cache, which would grow to this index.
    const prefix = this.namePrefix(this.drawPair(i))
    into.set(prefix, at)
    return writeDecimal(i + 1, into, at + prefix.length, 6)
  }

  /**
   * The index a generated name would belong to, if it is that name: its number read from its
   * digits, then its `<role>-<site>-` compared with the index's, character by character. Every
   * request by name asks this (reads.ts); matching a pattern and making the index's name to
   * compare was most of finding an agent by name.
   */
  indexOfName(name: string): number | undefined {
    const end = name.length
    let start = end
    while (start > 0 && isDigit(name.charCodeAt(start - 1))) start--
    const digits = end - start
    // At least six digits, as name() pads them; past 15 the number is beyond any index.
    if (digits < 6 || digits > 15 || start === 0 || name.charCodeAt(start - 1) !== DASH) return undefined
    let number = 0
    for (let k = start; k < end; k++) number = number * 10 + (name.charCodeAt(k) - ZERO)
    // Written as name() writes it: no zeros before a number of more than six digits.
    if (number === 0 || digits !== Math.max(6, decimalDigits(number))) return undefined
    const index = number - 1
    const prefix = this.namePrefix(this.drawPair(index))
    if (prefix.length !== start) return undefined
    for (let k = 0; k < start; k++) if (name.charCodeAt(k) !== prefix[k]) return undefined
    return index
  }

  /**
   * A test of whether generated name i contains `text` (lower case), without building the name:
   * a name is `<role>-<site>-<number>`, so for each of the few role and site pairs the answer is
   * known up front (the text is inside `<role>-<site>-`, or cannot be), or depends only on the
   * number's digits, which are tested with arithmetic. Searching a million agents costs a
   * table lookup and a few divisions each rather than a million strings. Renamed agents are the
   * caller's to check (their names are not generated).
   */
  nameContains(text: string): (i: number) => boolean {
    if (/^\d+$/.test(text)) {
      const contains = digitsContaining(text)
      return (i) => contains(i + 1)
    }
    const sites = this.vocabulary.sites
    // Per pair: ALL (the text is in its prefix), or the number's digits must start with one of these.
    const ALL = null
    const pairs: Array<Array<(n: number) => boolean> | null> = []
    for (const role of ROLES) {
      for (const site of sites) {
        const prefix = `${role}-${site}-`
        if (prefix.includes(text)) {
          pairs.push(ALL)
          continue
        }
        const starts: Array<(n: number) => boolean> = []
        for (let k = 1; k < text.length; k++) {
          if (prefix.endsWith(text.slice(0, k)) && /^\d+$/.test(text.slice(k))) starts.push(digitsStartingWith(text.slice(k)))
        }
        pairs.push(starts)
      }
    }
    if (pairs.every((starts) => starts !== ALL && starts.length === 0)) return () => false
    return (i) => {
      const starts = pairs[this.pairOf(i)]
      if (starts === ALL) return true
      for (const start of starts) if (start(i + 1)) return true
      return false
    }
  }

  /**
   * The role and site pair of generated name i (role × sites + site). Kept once worked out, two
   * bytes an agent, because name searches ask for every agent each time.
   */
  private pairOf(i: number): number {
    if (i >= this.pairsKnown) {
      const known = Math.max(i + 1, this.pairsKnown * 2, 1024)
      const cache = new Uint16Array(known)
      cache.set(this.pairCache.subarray(0, this.pairsKnown))
      for (let k = this.pairsKnown; k < known; k++) cache[k] = this.drawPair(k)
      this.pairCache = cache
      this.pairsKnown = known
    }
    return this.pairCache[i]
  }

  /** The role and site pair of generated name i, drawn (role × sites + site). */
  private drawPair(i: number): number {
    const sites = this.vocabulary.sites.length
    return (this.draw(i, 1) % ROLES.length) * sites + (this.draw(i, 2) % sites)
  }

  /** `<role>-<site>-` of a role and site pair (pairOf) as ASCII: roles and sites are lower-case letters and digits. */
  private namePrefix(pair: number): Uint8Array {
    let prefix = this.namePrefixes[pair]
    if (prefix === undefined) {
      const sites = this.vocabulary.sites.length
      const text = `${ROLES[Math.floor(pair / sites)]}-${this.vocabulary.sites[pair % sites]}-`
      prefix = this.namePrefixes[pair] = Uint8Array.from(text, (c) => c.charCodeAt(0))
    }
    return prefix
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

  writeUuid(i: number, into: Uint8Array, at: number): number {
    const a = this.draw(i, 3)
    const b = this.draw(i, 4)
    const c = this.draw(i, 5)
    // Version 4 layout: the version nibble is 4 and the variant bits are 10.
    at = writeHex(permute32(i, this.uuidKey), 8, into, at)
    into[at++] = DASH
    at = writeHex(a >>> 16, 4, into, at)
    into[at++] = DASH
    into[at++] = HEX_DIGIT[4]
    at = writeHex(a, 3, into, at)
    into[at++] = DASH
    at = writeHex(0x8000 | (b & 0x3fff), 4, into, at)
    into[at++] = DASH
    at = writeHex(b >>> 16, 4, into, at)
    return writeHex(c, 8, into, at)
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
    if (this.hasIpv6(i)) {
      const site = (this.seed & 0xffff).toString(16)
      return `fd00:${site}:${((n >>> 16) & 0xffff).toString(16)}::${(n & 0xffff).toString(16)}`
    }
    return `10.${16 + ((n >>> 16) & 0x7f)}.${(n >>> 8) & 255}.${n & 255}`
  }

  /** Whether agent i's address is an IPv6 one. */
  private hasIpv6(i: number): boolean {
    return this.draw(i, 6) % 7 === 0
  }

  writeAddress(i: number, into: Uint8Array, at: number): number {
    return this.writeAddressOf(i, this.hasIpv6(i), into, at)
  }

  /** writeAddress, told whether the address is an IPv6 one (writeService has drawn it). */
  private writeAddressOf(i: number, ipv6: boolean, into: Uint8Array, at: number): number {
    const n = i + 1
    if (ipv6) {
      // fd00:<the seed's low 16 bits>:<n's high 16 bits>::<n's low 16 bits>, each group without leading zeros
      at = writeAscii('fd00:', into, at)
      at = writeHexGroup(this.seed & 0xffff, into, at)
      into[at++] = 58
      at = writeHexGroup((n >>> 16) & 0xffff, into, at)
      into[at++] = 58
      into[at++] = 58
      return writeHexGroup(n & 0xffff, into, at)
    }
    at = writeAscii('10.', into, at)
    at = writeDecimal(16 + ((n >>> 16) & 0x7f), into, at)
    into[at++] = 46
    at = writeDecimal((n >>> 8) & 255, into, at)
    into[at++] = 46
    return writeDecimal(n & 255, into, at)
  }

  /**
   * `the service` of agent i's generated address and `port`, as serviceOf (agent-view.ts) writes
   * it: an IPv6 address in brackets.
   */
  writeService(i: number, port: number, into: Uint8Array, at: number): number {
    const ipv6 = this.hasIpv6(i)
    if (ipv6) into[at++] = 91
    at = this.writeAddressOf(i, ipv6, into, at)
    if (ipv6) into[at++] = 93
    into[at++] = 58
    return writeDecimal(port, into, at)
  }

  /** `<os>, Linux <kernel> x86_64, <cpus> CPUs, <memory> GiB RAM`, or the Windows form. */
  sysinfo(i: number, os: string, family: 'linux' | 'windows'): string {
    const cpus = CPUS[this.draw(i, 7) % CPUS.length]
    const memory = cpus * GIB_PER_CPU[this.draw(i, 8) % GIB_PER_CPU.length]
    if (family === 'windows') return `${os} ${windowsBuild(os)} x64, ${cpus} CPUs, ${memory} GiB RAM`
    const kernel = `${KERNEL_MAJORS[this.draw(i, 9) % KERNEL_MAJORS.length]}.${this.draw(i, 10) % 19}.0-${this.draw(i, 11) % 120}`
    return `${os}, Linux ${kernel} x86_64, ${cpus} CPUs, ${memory} GiB RAM`
  }

  /** The sysinfo of agent i after the OS's name it starts with (which is the caller's to write, escaped as its format needs). */
  writeSysinfoAfterOs(i: number, os: string, family: 'linux' | 'windows', into: Uint8Array, at: number): number {
    const cpus = CPUS[this.draw(i, 7) % CPUS.length]
    const memory = cpus * GIB_PER_CPU[this.draw(i, 8) % GIB_PER_CPU.length]
    if (family === 'windows') {
      at = writeAscii(' ', into, at)
      at = writeAscii(windowsBuild(os), into, at)
      at = writeAscii(' x64, ', into, at)
    } else {
      at = writeAscii(', Linux ', into, at)
      at = writeDecimal(KERNEL_MAJORS[this.draw(i, 9) % KERNEL_MAJORS.length], into, at)
      into[at++] = 46
      at = writeDecimal(this.draw(i, 10) % 19, into, at)
      at = writeAscii('.0-', into, at)
      at = writeDecimal(this.draw(i, 11) % 120, into, at)
      at = writeAscii(' x86_64, ', into, at)
    }
    at = writeDecimal(cpus, into, at)
    at = writeAscii(' CPUs, ', into, at)
    at = writeDecimal(memory, into, at)
    return writeAscii(' GiB RAM', into, at)
  }
}

/** A sysinfo's CPUs, GiB of memory per CPU and Linux kernel major version, each drawn per agent. */
const CPUS = [2, 4, 4, 8, 8, 16, 32]
const GIB_PER_CPU = [2, 4, 8]
const KERNEL_MAJORS = [5, 5, 6]

/** The Windows build a sysinfo shows for a Windows OS's name. */
function windowsBuild(os: string): string {
  return os.includes('2019') ? '10.0.17763' : os.includes('11') ? '10.0.22631' : '10.0.20348'
}

/** A 16-bit group of an IPv6 address: its hex digits without leading zeros (0 is `0`). */
function writeHexGroup(value: number, into: Uint8Array, at: number): number {
  let digits = 1
  while (digits < 4 && value >>> (4 * digits) !== 0) digits++
  return writeHex(value, digits, into, at)
}

/** How many digits the number part of a name has: at least six (names pad with zeros). */
function digitCount(n: number): number {
  if (n < 1_000_000) return 6
  let width = 7
  while (n >= 10 ** width) width++
  return width
}

/** A test of whether n, written with at least six digits, contains `digits`; arithmetic, no string. */
export function digitsContaining(digits: string): (n: number) => boolean {
  const length = digits.length
  const wanted = Number(digits)
  const modulus = 10 ** length
  return (n) => {
    const width = digitCount(n)
    if (length > width) return false
    let rest = n
    for (let p = 0; p <= width - length; p++) {
      if (rest % modulus === wanted) return true
      rest = Math.floor(rest / 10)
    }
    return false
  }
}

/** A test of whether n, written with at least six digits, starts with `digits`. */
export function digitsStartingWith(digits: string): (n: number) => boolean {
  const length = digits.length
  const wanted = Number(digits)
  return (n) => {
    const width = digitCount(n)
    return length <= width && Math.floor(n / 10 ** (width - length)) === wanted
  }
}

/**
 * The numbers from 1 to `last` whose digits (at least six, zeros first) contain `digits`, in
 * increasing order, found without looking at the others: for each place the digits can sit
 * at, every number with them there. About (width - length + 1) × last / 10^length of them, so a
 * search for an agent's number in a million agents visits hundreds, not a million.
 */
export function numbersContaining(digits: string, last: number): number[] {
  const length = digits.length
  const wanted = Number(digits)
  const found: number[] = []
  for (let width = 6; width <= Math.max(6, String(last).length); width++) {
    const low = width === 6 ? 1 : 10 ** (width - 1)
    const high = Math.min(last, 10 ** width - 1)
    if (low > high || length > width) continue
    for (let place = 0; place <= width - length; place++) {
      const below = 10 ** place
      const above = 10 ** (place + length)
      for (let head = 0; head * above <= high; head++) {
        const base = head * above + wanted * below
        if (base > high) break
        for (let tail = 0; tail < below; tail++) {
          const n = base + tail
          if (n > high) break
          if (n >= low) found.push(n)
        }
      }
    }
  }
  found.sort((a, b) => a - b)
  // A number with the digits at two places was found twice.
  return found.filter((n, k) => k === 0 || found[k - 1] !== n)
}
