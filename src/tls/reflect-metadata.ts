/**
 * The few `Reflect` metadata functions that tsyringe (a dependency of @peculiar/x509) checks
 * for when it loads. @peculiar/x509 only uses tsyringe as a registry of algorithm classes and
 * never injects constructor parameters, so this small store is all it needs; it saves a
 * dependency on the `reflect-metadata` package. Installed only when no polyfill is present.
 *
 * Import it before @peculiar/x509 (src/tls/x509.ts does); ESM evaluates imports in order.
 */

type MetadataKey = unknown
type Target = object
type PropertyKey_ = string | symbol | undefined

const store = new WeakMap<Target, Map<PropertyKey_, Map<MetadataKey, unknown>>>()

function ownMap(target: Target, property: PropertyKey_, create: boolean): Map<MetadataKey, unknown> | undefined {
  let byProperty = store.get(target)
  if (byProperty === undefined) {
    if (!create) return undefined
    byProperty = new Map()
    store.set(target, byProperty)
  }
  let entries = byProperty.get(property)
  if (entries === undefined && create) {
    entries = new Map()
    byProperty.set(property, entries)
  }
  return entries
}

function getOwnMetadata(key: MetadataKey, target: Target, property?: PropertyKey_): unknown {
  return ownMap(target, property, false)?.get(key)
}

function hasOwnMetadata(key: MetadataKey, target: Target, property?: PropertyKey_): boolean {
  return ownMap(target, property, false)?.has(key) ?? false
}

function getMetadata(key: MetadataKey, target: Target, property?: PropertyKey_): unknown {
  // Like the proposal: own metadata first, then the prototype chain.
  for (let current: Target | null = target; current !== null; current = Object.getPrototypeOf(current) as Target | null) {
    if (hasOwnMetadata(key, current, property)) return getOwnMetadata(key, current, property)
  }
  return undefined
}

function hasMetadata(key: MetadataKey, target: Target, property?: PropertyKey_): boolean {
  for (let current: Target | null = target; current !== null; current = Object.getPrototypeOf(current) as Target | null) {
    if (hasOwnMetadata(key, current, property)) return true
  }
  return false
}

function defineMetadata(key: MetadataKey, value: unknown, target: Target, property?: PropertyKey_): void {
  ownMap(target, property, true)?.set(key, value)
}

function metadata(key: MetadataKey, value: unknown) {
  return (target: Target, property?: PropertyKey_): void => defineMetadata(key, value, target, property)
}

const reflect = Reflect as unknown as Record<string, unknown>
if (typeof reflect.getMetadata !== 'function') {
  Object.assign(reflect, { getOwnMetadata, hasOwnMetadata, getMetadata, hasMetadata, defineMetadata, metadata })
}
