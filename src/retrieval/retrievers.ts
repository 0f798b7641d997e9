/** Retriever names, apart from the retrievers so that the CLI can list and check them without loading them. */
export const RETRIEVERS = ['bm25', 'dense', 'use', 'hybrid'] as const;
export type RetrieverName = (typeof RETRIEVERS)[number];

/** What `search eval` can score: the retrievers, plus the fusion variants it compares. */
export const EVAL_RETRIEVERS = ['bm25', 'use', 'dense', 'hybrid', 'hybrid-rrf', 'hybrid-dense'] as const;
export type EvalRetriever = (typeof EVAL_RETRIEVERS)[number];
