// The shape of a problem code's entry, and the helper the catalogue's parts write them with
// (problem-codes.ts puts the parts together).

export interface ProblemDoc {
  /** The problem's `title`. */
  title: string;
  /** What happened, in a sentence or two. */
  means: string;
  /** What the caller can do about it. */
  todo: string;
  /**
   * The operations that may answer with it, beyond those every operation of its kind may
   * (`ALL`, `SIGNED`, `BODY`, `POST`): `METHOD /path` as in the OpenAPI document, `*` for any
   * method, a trailing `*` for any path below; none for the web app's own pages.
   */
  on?: readonly string[];
  /** Every operation of a kind may answer with it: all, those that need a key, those with a body, POSTs. */
  every?: 'all' | 'signed' | 'body' | 'post';
}

export const doc = (title: string, means: string, todo: string, on?: readonly string[] | ProblemDoc['every']): ProblemDoc =>
  on === undefined ? { title, means, todo } : typeof on === 'string' ? { title, means, todo, every: on } : { title, means, todo, on };
