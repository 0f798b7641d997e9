import uPlot from 'uplot';
import { h } from './dom.js';

export const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#be185d', '#4d7c0f'];
const HEIGHT = 220;
/** Whole steps on the x axis: a step axis has no 1.5. */
const STEP_INCREMENTS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000];

export interface Series {
  label: string;
  values: (number | null)[];
}

export interface LinePlot {
  element: HTMLElement;
  /** New points for the same series (the server view's refresh). */
  update(xs: number[], series: Series[]): void;
}

/**
 * A line plot of one metric over x, one series per label; missing points are gaps the line bridges. It is drawn
 * once the box is in the page and has a width, and follows the box's width after that.
 */
export function linePlot(
  title: string,
  xs: number[],
  series: Series[],
  xLabel = 'step',
  yRange?: [number, number],
): LinePlot {
  const element = h('div', { class: 'plot', 'data-metric': title });
  let data = aligned(xs, series);
  let chart: uPlot | undefined;
  const options = (width: number): uPlot.Options => ({
    title,
    width,
    height: HEIGHT,
    scales: { x: { time: false }, ...(yRange ? { y: { range: yRange } } : {}) },
    series: [
      { label: xLabel },
      ...series.map((s, i) => ({
        label: s.label,
        stroke: COLORS[i % COLORS.length],
        width: 2,
        spanGaps: true,
        points: { size: 5 },
      })),
    ],
    axes: [{ label: xLabel, ...(xLabel === 'step' ? { incrs: STEP_INCREMENTS } : {}) }, { size: 64 }],
  });
  new ResizeObserver(([entry]) => {
    const width = Math.floor(entry?.contentRect.width ?? 0);
    if (width <= 0) return;
    if (chart) chart.setSize({ width, height: HEIGHT });
    else chart = new uPlot(options(width), data, element);
  }).observe(element);
  return {
    element,
    update(nextXs, nextSeries) {
      data = aligned(nextXs, nextSeries);
      chart?.setData(data);
    },
  };
}

function aligned(xs: number[], series: Series[]): uPlot.AlignedData {
  return [xs, ...series.map((s) => s.values)] as uPlot.AlignedData;
}
