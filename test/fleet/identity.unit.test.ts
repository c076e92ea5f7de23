import { describe, expect, it } from 'vitest'
import { Identity, buildVocabulary } from '../../src/fleet/identity.js'
import { MAX_GENERATED_BYTES } from '../../src/fleet/fleet-api.js'
import { serviceOf } from '../../src/fleet/agent-view.js'

describe('agent identity', () => {
  const identity = new Identity(7)

  // Made with the package's main entry (every locale loaded, `new Faker({ locale: [en] })`)
  // before identity.ts took the English locale's entry alone: the same seed still gives the
  // same sites and domain, so every generated name and host stays as it was.
  it('draws the vocabulary of a seed as it always did', () => {
    expect(buildVocabulary(1)).toEqual({
      sites: ['eld', 'eas', 'bal', 'cri', 'flo', 'bog', 'for', 'ski', 'goy', 'sou', 'lak', 'mar', 'ans', 'mcg', 'por', 'tre', 'par', 'kir', 'len', 'tor', 'nor', 'pla', 'dra', 'min'],
      domain: 'schoen.lan'
    })
    expect(buildVocabulary(7)).toEqual({
      sites: ['por', 'kar', 'har', 'wes', 'new', 'geo', 'gor', 'lak', 'nob', 'gre', 'cal', 'sou', 'jer', 'sch', 'for', 'orl', 'kim', 'wal', 'eas', 'elc', 'cha', 'cru', 'gol', 'ken'],
      domain: 'hermann.corp'
    })
    // Drawn again after another seed: the one instance is seeded anew each time.
    expect(buildVocabulary(42).domain).toBe('luettgen.internal')
    expect(buildVocabulary(1).domain).toBe('schoen.lan')
  })

  it('is the same for the same seed and differs for another seed', () => {
    const again = new Identity(7)
    const other = new Identity(8)
    expect(again.name(12)).toBe(identity.name(12))
    expect(again.uuid(12)).toBe(identity.uuid(12))
    expect(other.uuid(12)).not.toBe(identity.uuid(12))
  })

  it('gives version 4 UUIDs that lead back to their agent', () => {
    for (const i of [0, 1, 999, 123_456, 999_999]) {
      const uuid = identity.uuid(i)
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(identity.indexOfUuid(uuid)).toBe(i)
      expect(identity.indexOfUuid(uuid.toUpperCase())).toBe(i)
    }
  })

  it('rejects a UUID that only shares the head of a generated one', () => {
    const uuid = identity.uuid(5)
    expect(identity.indexOfUuid(uuid.slice(0, -1) + (uuid.endsWith('0') ? '1' : '0'))).toBeUndefined()
  })

  it('gives names that end in the agent number and lead back to the agent', () => {
    expect(identity.name(41)).toMatch(/^[a-z0-9]+-[a-z]{3}-000042$/)
    expect(identity.indexOfName(identity.name(41))).toBe(41)
    expect(identity.indexOfName('web-xyz-000042')).toBe(identity.name(41) === 'web-xyz-000042' ? 41 : undefined)
    expect(identity.indexOfName('no-number')).toBeUndefined()
  })

  it('finds a name\'s index exactly where the name it would have is the name', () => {
    // What indexOfName answers, by its definition: the index whose name() this is.
    const byDefinition = (name: string) => {
      const match = /-(\d{6,})$/.exec(name)
      const index = match === null ? -1 : Number(match[1]) - 1
      return index >= 0 && identity.name(index) === name ? index : undefined
    }
    const names: string[] = ['', '-', '000001', '-000001', 'x-000000', 'web-par-', 'web-par-00001', 'web-par-0000001', '9'.repeat(20), `a-b-${'9'.repeat(16)}`]
    for (const i of [0, 1, 8, 41, 99_999, 999_998, 999_999, 1_000_000, 123_456_788]) {
      const name = identity.name(i)
      const number = name.slice(name.lastIndexOf('-') + 1)
      const prefix = name.slice(0, name.lastIndexOf('-') + 1)
      names.push(name, name.toUpperCase(), `${name} `, ` ${name}`, `x${name}`, name.slice(1), `${prefix}0${number}`, `${prefix}${number}0`, `${prefix.slice(0, -1)}_${number}`, `${prefix}${number.slice(0, -1)}\u0661`)
      for (let k = 0; k < prefix.length; k++) names.push(prefix.slice(0, k) + String.fromCharCode(prefix.charCodeAt(k) + 1) + prefix.slice(k + 1) + number)
    }
    for (const name of names) expect(identity.indexOfName(name), name).toBe(byDefinition(name))
    expect(names.filter((name) => identity.indexOfName(name) !== undefined)).toHaveLength(9)
  })

  it('gives certificate fingerprints that lead back to the agent', () => {
    const fingerprint = identity.certFingerprint(77)
    expect(fingerprint).toMatch(/^[0-9a-f]{40}$/)
    expect(identity.indexOfCertFingerprint(fingerprint)).toBe(77)
    expect(identity.indexOfCertFingerprint('0'.repeat(40))).toBeUndefined()
  })

  it('gives distinct addresses to distinct agents', () => {
    const seen = new Set<string>()
    for (let i = 0; i < 5000; i++) seen.add(identity.address(i))
    expect(seen.size).toBe(5000)
  })

  // The byte writers are what a list of more agents than are kept writes its items from
  // (src/http/item-bytes.ts): each must write what its string method gives, for any seed
  // (an IPv6 group of the seed with and without leading zeros), index (names of six digits and
  // of more, addresses past 2^16 and 2^24) and OS (Linux and each Windows build).
  it('writes as bytes the texts its string methods give', () => {
    const OSES = [
      ['Ubuntu 22.04', 'linux'],
      ['Windows Server 2019', 'windows'],
      ['Windows 11 Pro', 'windows'],
      ['Windows Server 2022', 'windows'],
      ['Débian "12" <&>', 'linux']
    ] as const
    for (const seed of [1, 7, 0xfffff, 2 ** 31 + 5]) {
      const identity = new Identity(seed)
      // Written at an offset, into bytes that hold something else: only what a writer says it wrote is read.
      const bytes = Buffer.alloc(MAX_GENERATED_BYTES + 3, 0x2a)
      const written = (write: (into: Uint8Array, at: number) => number) => bytes.toString('latin1', 3, write(bytes, 3))
      const indices = [...Array.from({ length: 3000 }, (_, i) => i), 65_535, 65_536, 999_998, 999_999, 1_000_000, 2 ** 24 + 3, 2 ** 32 - 2]
      let ipv6 = 0
      for (const i of indices) {
        const address = identity.address(i)
        if (address.includes(':')) ipv6++
        expect(written((into, at) => identity.writeName(i, into, at))).toBe(identity.name(i))
        expect(written((into, at) => identity.writeUuid(i, into, at))).toBe(identity.uuid(i))
        expect(written((into, at) => identity.writeAddress(i, into, at))).toBe(address)
        expect(written((into, at) => identity.writeService(i, 4041, into, at))).toBe(serviceOf(address, 4041))
        const [os, family] = OSES[i % OSES.length]
        expect(os + written((into, at) => identity.writeSysinfoAfterOs(i, os, family, into, at))).toBe(identity.sysinfo(i, os, family))
      }
      expect(ipv6).toBeGreaterThan(100)
    }
  })
})
