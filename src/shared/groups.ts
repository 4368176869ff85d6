// Grouping rows in a Map without copying each group on every row (a copy per
// row is quadratic: 100,000 grants to one organisation made 5 billion copies).
// Rows with one key each: Map.groupBy; rows under several keys, or groups
// built up in a loop: pushTo.

/** Adds `value` to the group of `key`, making the group on its first value. */
export function pushTo<K, V>(groups: Map<K, V[]>, key: K, value: V): void {
  const group = groups.get(key);
  if (group === undefined) groups.set(key, [value]);
  else group.push(value);
}
