// Distances on the globe, for organisations near a point.

/** Great-circle distance in kilometres. */
export function distanceKm(aLat: number, aLng: number, bLat: number, bLng: number): number {
  const rad = Math.PI / 180;
  const dLat = (bLat - aLat) * rad;
  const dLng = (bLng - aLng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(aLat * rad) * Math.cos(bLat * rad) * Math.sin(dLng / 2) ** 2;
  return 12_742 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The box of latitudes and longitudes around a circle (a superset of it: what an index can find). */
export function boxAround(latitude: number, longitude: number, radiusKm: number): { lat: [number, number]; lng: [number, number] } {
  const dLat = radiusKm / 111;
  const dLng = radiusKm / (111 * Math.max(0.01, Math.cos((latitude * Math.PI) / 180)));
  return { lat: [latitude - dLat, latitude + dLat], lng: [longitude - dLng, longitude + dLng] };
}
