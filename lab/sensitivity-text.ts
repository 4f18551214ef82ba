import { quantileOf } from './stats.js';
import { SENSITIVITIES, type SensitivityResult } from './sensitivity.js';

/** Index of each figure in a sensitivity run's vector ({@link SENSITIVITY_METRICS}). */
const REAL = 0;
const RECOVERY = 2;

type Runs = readonly (readonly (number | null)[])[];

const median = (values: readonly (number | null)[]): number => quantileOf(values.map((v) => v ?? Infinity).sort((a, b) => a - b), 0.5);
const column = (runs: Runs, i: number): (number | null)[] => runs.map((v) => v[i] ?? null);
const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
const signedPts = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)} pts`;
const seconds = (x: number): string => (x === Infinity ? '∞' : `${x.toFixed(1)} s`);
const seedsText = (r: SensitivityResult): string => `seeds ${r.seeds[0]}–${r.seeds[r.seeds.length - 1]}, ${r.durationMs / 1_000} s runs`;

/** The rows of a sensitivity ordered by median real success under a variant, best first (ties in row order). */
export function ranking(r: SensitivityResult, variant: string, scenario: string): string[] {
  const byRow = r.runs[variant]![scenario]!;
  const rows = Object.keys(byRow);
  const real = new Map(rows.map((row) => [row, median(column(byRow[row]!, REAL))]));
  return [...rows].sort((a, b) => real.get(b)! - real.get(a)! || rows.indexOf(a) - rows.indexOf(b));
}

/** How many pairs of items two orders of the same items rank the other way round. */
export function discordantPairs(a: readonly string[], b: readonly string[]): number {
  const pos = new Map(b.map((x, i) => [x, i]));
  let n = 0;
  for (let i = 0; i < a.length; i++) for (let j = i + 1; j < a.length; j++) if (pos.get(a[i]!)! > pos.get(a[j]!)!) n++;
  return n;
}

/** The patience comparison: each row's median real success and rank under each variant, and the pairs that swap. */
function patienceText(r: SensitivityResult): string[] {
  const [a, b] = r.variants.map((v) => v.label) as [string, string];
  const scenario = Object.keys(r.runs[a]!)[0]!;
  const ra = ranking(r, a, scenario);
  const rb = ranking(r, b, scenario);
  const n = ra.length;
  const lines = [`| row | real, ${a} | rank | real, ${b} | rank |`, '|---|---|---|---|---|'];
  for (const row of ra) {
    const real = (v: string): string => pct(median(column(r.runs[v]![scenario]![row]!, REAL)));
    lines.push(`| \`${row}\` | ${real(a)} | ${ra.indexOf(row) + 1} | ${real(b)} | ${rb.indexOf(row) + 1} |`);
  }
  const swaps = discordantPairs(ra, rb);
  return [
    `Measured: ${swaps} of ${(n * (n - 1)) / 2} pairs of rows change order between ${a} and ${b} (median real success over the fault and the 60 s after it, ${seedsText(r)}); first place: \`${ra[0]}\` at ${a}, \`${rb[0]}\` at ${b}.`,
    '',
    ...lines,
  ];
}

/** A table of every row and scenario under every variant: median real success, median recovery and the seeds not recovered. */
function variantsTable(r: SensitivityResult, deltaTo?: string): string[] {
  const labels = r.variants.map((v) => v.label);
  const first = r.runs[labels[0]!]!;
  const lines = [`| scenario | row | ${labels.join(' | ')} |`, `|---|---|${labels.map(() => '---|').join('')}`];
  for (const scenario of Object.keys(first))
    for (const row of Object.keys(first[scenario]!)) {
      const tds = labels.map((v) => {
        const runs = r.runs[v]![scenario]![row]!;
        const rec = column(runs, RECOVERY);
        const never = rec.filter((x) => x === null).length;
        let cell = `real ${pct(median(column(runs, REAL)))}, recovery ${seconds(median(rec))}${never > 0 ? ` (∞ in ${never}/${rec.length})` : ''}`;
        if (deltaTo !== undefined && row !== deltaTo) {
          const ref = r.runs[v]![scenario]![deltaTo]!;
          cell += `, ${signedPts(median(runs.map((x, i) => (x[REAL] ?? 0) - (ref[i]![REAL] ?? 0))))} vs \`${deltaTo}\``;
        }
        return cell;
      });
      lines.push(`| ${scenario} | \`${row}\` | ${tds.join(' | ')} |`);
    }
  return lines;
}

/** The queue comparison: for each scenario and row, the seeds not recovered within the run under each queue. */
function queueText(r: SensitivityResult): string[] {
  const labels = r.variants.map((v) => v.label);
  const parts: string[] = [];
  const first = r.runs[labels[0]!]!;
  for (const scenario of Object.keys(first))
    for (const row of Object.keys(first[scenario]!)) {
      const never = labels.map((v) => column(r.runs[v]![scenario]![row]!, RECOVERY).filter((x) => x === null).length);
      if (never.some((k) => k > 0)) parts.push(`\`${row}\` in ${scenario}: ${labels.map((v, i) => `${never[i]}/${r.seeds.length} seeds at ${v}`).join(', ')}`);
    }
  return [`Measured (${seedsText(r)}), runs that never recover within the run: ${parts.length === 0 ? 'none' : parts.join('; ')}.`, '', ...variantsTable(r)];
}

/** `errorCountTrip`'s real success against the baseline's under each variant (a flap period, a fault's length), per scenario. */
function errorCountText(r: SensitivityResult, per: string): string[] {
  const labels = r.variants.map((v) => v.label);
  const delta = (v: string, scenario: string): number => {
    const ours = r.runs[v]![scenario]!['errorCountTrip']!;
    const ref = r.runs[v]![scenario]!['baseline']!;
    return median(ours.map((x, i) => (x[REAL] ?? 0) - (ref[i]![REAL] ?? 0)));
  };
  const scenarios = Object.keys(r.runs[labels[0]!]!);
  const deltas = scenarios.map((s) => `${scenarios.length > 1 ? `${s}: ` : ''}${labels.map((v) => `${signedPts(delta(v, s))} at ${v}`).join(', ')}`);
  return [`Measured (${seedsText(r)}), \`errorCountTrip\`'s real success minus the baseline's (median of the per-seed differences), per ${per}: ${deltas.join('; ')}.`, '', ...variantsTable(r, 'baseline')];
}

const TEXT: Record<string, (r: SensitivityResult) => string[]> = {
  patience: patienceText,
  queueLimit: queueText,
  flapPeriod: (r) => errorCountText(r, 'flap period'),
  faultLength: (r) => errorCountText(r, "fault's length"),
};

/** docs/lab.md's sensitivities section: per sensitivity its question, what the runs measured, and their table. */
export function sensitivityText(results: readonly SensitivityResult[], command: string): string {
  const out = [`Generated by \`${command}\` from lab/sweep.json; do not edit by hand.`, ''];
  for (const r of results) out.push(`**${SENSITIVITIES.find((s) => s.id === r.id)?.question ?? r.id}**`, '', ...(TEXT[r.id]?.(r) ?? variantsTable(r)), '');
  return out.join('\n');
}
