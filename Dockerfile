# faultline: a small production image.
# Build stage compiles TypeScript and better-sqlite3's native addon; the runtime stage
# carries only dist/, migrations/ and production node_modules.
FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
COPY scripts ./scripts
COPY migrations ./migrations
RUN npm ci --no-audit --no-fund \
    && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    FAULTLINE_HOST=0.0.0.0 \
    FAULTLINE_PORT=8787 \
    FAULTLINE_DB=/data/faultline.db \
    FAULTLINE_TAIL=/logs/**/*.log
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/migrations ./migrations
RUN mkdir -p /data /logs && chown -R node:node /data /logs
USER node
VOLUME ["/data"]
EXPOSE 8787
# Binding to 0.0.0.0 requires an API token: pass FAULTLINE_API_TOKEN at run time.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.FAULTLINE_PORT||8787)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# through its #! line, which carries the daemon's V8 flags
ENTRYPOINT ["./dist/src/main.js"]
CMD ["serve"]
