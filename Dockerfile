# Sales Agent container (docs/deployment.md "Container"). It could not be built on the machine this was written
# on (no Docker engine there); its RUN steps are the same commands the tests and docs run and check:
# `npm ci`, `npm run build`, `npm prune --omit=dev`, then `node scripts/start.mjs --prod`.
#   docker build -t sales-agent .
#   docker run -p 3000:3000 -v sales-agent-data:/data --env-file .env sales-agent
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY packages/shared/package.json packages/shared/
# No browser download for the E2E tooling, which a server image never runs.
ENV PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
# The image's non-root user (uid 1000); DATA_DIR belongs to it.
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Liveness (docs/operations.md): /api/health answers 503 when the database is unreachable.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node as PID 1's child-free process: docker stop's SIGTERM reaches the server's graceful shutdown.
CMD ["node", "scripts/start.mjs", "--prod"]
