/**
 * The canonical JSON of a body (docs/access.md): compact, keys sorted at every depth, non-ASCII
 * not escaped — what the gateway signs and what this client sends, byte for byte the same as
 * Python's `json.dumps(body, separators=(",", ":"), sort_keys=True, ensure_ascii=False)`.
 */
export function canonicalJson(body: unknown): string {
  if (body === undefined || body === null) {
    return "";
  }
  return JSON.stringify(sortKeys(body));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(sortKeys);
  }
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const sorted: Record<string, unknown> = {};
    // Python sorts keys by code point; JavaScript's default sort compares UTF-16 units, which
    // differs only above U+FFFF: compare code points to stay identical.
    for (const key of Object.keys(value).sort(byCodePoint)) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) {
        sorted[key] = sortKeys(item);
      }
    }
    return sorted;
  }
  return value;
}

function byCodePoint(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i]!.codePointAt(0) ?? 0) - (y[i]!.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
