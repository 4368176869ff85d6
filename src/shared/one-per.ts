// One value per owner, made the first time it is asked for: per Deps or per database, since
// tests open several of them in one process. Held weakly, so a closed owner's value goes with it.

/** `cache`'s value for `owner`, made by `make` the first time. */
export function onePer<K extends object, V>(cache: WeakMap<K, V>, owner: K, make: (owner: K) => V): V {
  let value = cache.get(owner);
  if (value === undefined) {
    value = make(owner);
    cache.set(owner, value);
  }
  return value;
}
