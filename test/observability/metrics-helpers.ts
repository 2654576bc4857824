// Reading a Prometheus text scrape in tests: the value of one series, found by name and labels.

/** `name{a="x",b="y"} 3` → the value of the series whose labels are exactly `labels`; 0 if absent. */
export function sample(scrape: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of scrape.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '')
      .split(/,(?=[a-zA-Z_]\w*=")/)
      .filter(Boolean)
      .sort()
      .join(',');
    if (have === wanted) return Number(m[3]);
  }
  return 0;
}
