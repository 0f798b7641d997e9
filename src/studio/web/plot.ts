import uPlot from 'uplot';
import { h } from './dom.js';

export const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#be185d', '#4d7c0f'];

/** A line plot of one metric over x, one series per name; missing points are gaps bridged by the line. */
export function linePlot(title: string, xs: number[], series: { label: string; values: (number | null)[] }[], xLabel = 'step'): HTMLElement {
  const box = h('div', { class: 'plot', 'data-metric': title });
  const width = 460;
  const options: uPlot.Options = {
    title,
    width,
    height: 220,
    scales: { x: { time: false } },
    series: [{ label: xLabel }, ...series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true, points: { size: 5 } }))],
    axes: [{ label: xLabel }, { size: 50 }],
  };
  new uPlot(options, [xs, ...series.map((s) => s.values)] as uPlot.AlignedData, box);
  return box;
}
