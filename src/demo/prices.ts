// The demo's market: a year of daily closing prices for five funds' symbols,
// a random walk from a fixed seed (the same on every machine), each day's
// move a few tenths of a percent up or down with a slight upward drift.

export const DEMO_SYMBOLS = { VTI: '245.10', VXUS: '61.30', BND: '72.40', BNDX: '48.90', VNQ: '88.20' } as const;

/** Numbers in [0, 1) from a seed, the same sequence on every machine (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Prices at 21:00 UTC (the US close) on each of the `days` days before `today`, oldest first. */
export function demoPrices(today: Date, days: number, seed = 20_261_127): Array<{ symbol: string; price: string; time: string }> {
  const random = seededRandom(seed);
  // Prices in hundredths of a cent (integers), so the walk itself is exact.
  const now = new Map(Object.entries(DEMO_SYMBOLS).map(([symbol, price]) => [symbol, Math.round(Number(price) * 10_000)]));
  const volatility: Record<string, number> = { VTI: 120, VXUS: 110, BND: 30, BNDX: 25, VNQ: 150 };
  const out: Array<{ symbol: string; price: string; time: string }> = [];
  const start = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) - days * 86_400_000;
  for (let d = 0; d < days; d++) {
    const time = new Date(start + d * 86_400_000 + 21 * 3_600_000).toISOString();
    for (const [symbol, price] of now) {
      const basisPoints = Math.round((random() - 0.48) * 2 * (volatility[symbol] ?? 100));
      const next = Math.max(1, Math.round((price * (10_000 + basisPoints)) / 10_000));
      now.set(symbol, next);
      out.push({ symbol, price: (next / 10_000).toFixed(4), time });
    }
  }
  return out;
}
