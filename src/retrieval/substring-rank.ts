import type { ToolSummary } from '../library/store.js';

/**
 * Orders the tools a substring filter matched (`GET /v1/tools?q=`) best first: where the text occurs says how well a
 * tool answers it. A name that is the text, then one that starts with it or holds it as whole words, then a name
 * holding it inside a word, then the id, then the description; within a tier the shorter name (fewer other words),
 * then library order. The set is the filter's: ranking never drops or adds a tool.
 */
export function rankSubstringMatches(tools: readonly ToolSummary[], q: string): ToolSummary[] {
  const text = q.trim().toLowerCase();
  if (text === '') return [...tools];
  const word = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(text)}(?![\\p{L}\\p{N}])`, 'u');
  const tier = (tool: ToolSummary): number => {
    const name = tool.name.toLowerCase();
    if (name === text) return 0;
    if (name.startsWith(text) && word.test(name)) return 1;
    if (word.test(name)) return 2;
    if (name.includes(text)) return 3;
    if (word.test(tool.id.toLowerCase().replace(/[_-]+/g, ' '))) return 4;
    if (tool.id.toLowerCase().includes(text)) return 5;
    if (word.test(tool.description.toLowerCase())) return 6;
    return 7;
  };
  return tools
    .map((tool, order) => ({ tool, order, tier: tier(tool) }))
    .sort((a, b) => a.tier - b.tier || a.tool.name.length - b.tool.name.length || a.order - b.order)
    .map(({ tool }) => tool);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
