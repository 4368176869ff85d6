// Who an operator's audit actor names, whichever door they acted through (`admin:` a token's
// operator, `operator:` or `cli:` the CLI): what "a second operator" compares (rules §17, §20).

/** The person an audit actor names, lower-cased: `admin:Ana`, `operator:ana` and `cli:ana` are one person. */
export function personOf(actor: string): string {
  return actor
    .replace(/^(admin|operator|cli):/, '')
    .trim()
    .toLowerCase();
}

/** Two audit actors name the same person. */
export function samePerson(a: string, b: string): boolean {
  return personOf(a) === personOf(b);
}
