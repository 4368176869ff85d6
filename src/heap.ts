// How the server's heap is run. V8 moves an allocation site's objects straight into the old
// generation once most of them have outlived a young collection ("pretenuring"). A burst of load
// (a server's first seconds, a queue of requests) makes a request's objects live long enough for
// that, and the decision outlives the burst: every later request's rows, statements and answers
// are then made in the old space, which fills with garbage that only a full collection frees,
// with pauses of tens of milliseconds (docs/performance-history.md, 2026-12-05, midday).
// A request's objects are short-lived by nature: the server asks V8 not to pretenure them.
import { setFlagsFromString } from 'node:v8';

/** Called once, before a serving process opens its platform (`almoner serve`, `almoner demo`, the bench's server). */
export function keepRequestObjectsYoung(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
