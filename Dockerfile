# ToolEnv server with the default 50,011-tool library, its search index and dependency graph built into the image.
#   docker build -t toolenv .
#   docker run --rm -p 8080:8080 toolenv
FROM node:20-bookworm-slim

# better-sqlite3 falls back to a native build when no prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# onnxruntime-node's install script would fetch CUDA files from outside the npm registry; npm before 11.16 reads no
# allowScripts in package.json to stop it.
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json tsconfig.json tsconfig.studio.json ./
COPY bin ./bin
COPY src ./src
COPY schemas ./schemas
COPY examples ./examples
COPY test ./test
RUN npm ci \
 && node bin/toolenv library build \
 && node bin/toolenv search index \
 && node bin/toolenv graph build \
 && npm prune --omit=dev \
 && rm -rf test dist/test

ENV NODE_ENV=production
EXPOSE 8080
CMD ["node", "bin/toolenv", "serve", "--host", "0.0.0.0", "--port", "8080"]
