import { svg } from './dom.js';
import type { TurnPlan } from './types.js';

const NODE_W = 190;
const NODE_H = 40;
const GAP_X = 60;
const GAP_Y = 14;

/** An execution plan's DAG drawn in its layers, left to right; an arrow for each dependency. */
export function planDag(plan: TurnPlan): SVGElement | null {
  const calls = plan.calls ?? [];
  if (calls.length === 0) return null;
  const layers = plan.layers && plan.layers.length > 0 ? plan.layers : [calls.map((c) => c.id)];
  const at = new Map<string, { x: number; y: number }>();
  layers.forEach((layer, i) =>
    layer.forEach((id, j) => at.set(id, { x: i * (NODE_W + GAP_X), y: j * (NODE_H + GAP_Y) })),
  );
  // Calls outside the layers (a plan whose flow left some out) go in a last column of their own.
  const rest = calls.filter((c) => !at.has(c.id));
  rest.forEach((c, j) => at.set(c.id, { x: layers.length * (NODE_W + GAP_X), y: j * (NODE_H + GAP_Y) }));
  const columns = layers.length + (rest.length > 0 ? 1 : 0);
  const rows = Math.max(...layers.map((l) => l.length), rest.length);
  const width = columns * NODE_W + (columns - 1) * GAP_X + 2;
  const height = rows * NODE_H + (rows - 1) * GAP_Y + 2;
  const arrows = calls.flatMap((call) =>
    call.depends_on.flatMap((from) => {
      const a = at.get(from);
      const b = at.get(call.id);
      if (!a || !b) return [];
      const x1 = a.x + NODE_W;
      const y1 = a.y + NODE_H / 2;
      const x2 = b.x;
      const y2 = b.y + NODE_H / 2;
      const mid = (x1 + x2) / 2;
      return [
        svg('path', {
          d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2 - 6},${y2}`,
          class: 'dag-edge',
          'marker-end': 'url(#arrow)',
        }),
      ];
    }),
  );
  const nodes = calls.map((call) => {
    const p = at.get(call.id)!;
    return svg(
      'g',
      { class: 'dag-node', transform: `translate(${p.x + 1},${p.y + 1})` },
      svg('title', null, `${call.id}: ${call.tool}${call.depends_on.length ? ` ← ${call.depends_on.join(', ')}` : ''}`),
      svg('rect', { width: NODE_W, height: NODE_H, rx: 6 }),
      svg('text', { x: 8, y: 16, class: 'dag-id' }, call.id),
      svg('text', { x: 8, y: 32, class: 'dag-tool' }, call.tool.length > 28 ? `${call.tool.slice(0, 27)}…` : call.tool),
    );
  });
  return svg(
    'svg',
    {
      class: 'dag',
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': `plan DAG in ${layers.length} layers`,
    },
    svg(
      'defs',
      null,
      svg(
        'marker',
        {
          id: 'arrow',
          viewBox: '0 0 10 10',
          refX: 4,
          refY: 5,
          markerWidth: 8,
          markerHeight: 8,
          orient: 'auto-start-reverse',
        },
        svg('path', { d: 'M0,0 L10,5 L0,10 z' }),
      ),
    ),
    arrows,
    nodes,
  );
}
