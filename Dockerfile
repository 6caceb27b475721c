# The service in the official Node image, installed and started with the two commands the tested
# production install runs (test/integration/production-install.test.ts): `npm ci --omit=dev`, then
# `npm start`, which runs the pinned Node 24 from node_modules. Not built by the tests (the test
# machine has no base images); test/integration/deploy-files.test.ts holds it to those steps.
FROM node:24-bookworm-slim

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/home/node/data \
    npm_config_update_notifier=false

# The image's unprivileged user owns the app and the embedded database's folder.
RUN mkdir -p /home/node/app /home/node/data && chown node:node /home/node/app /home/node/data
WORKDIR /home/node/app
USER node

# Dependencies first, so a change of code alone reuses this layer. The install's own step
# (postinstall: the embedded database's empty cluster, which a new data folder copies) runs these two.
COPY --chown=node:node package.json package-lock.json .npmrc ./
COPY --chown=node:node scripts/pglite-template.ts scripts/
COPY --chown=node:node src/store/pglite-template.ts src/store/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --chown=node:node . .

# The embedded database (when DATABASE_URL is unset) lives here; mount a volume on it.
VOLUME ["/home/node/data"]
EXPOSE 8080

# Ready: the database and the provider answer. The image's own Node runs the probe (no curl in it).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# npm, PID 1 here, passes docker stop's SIGTERM to the service (the start script execs Node), which
# finishes what it is doing before it exits.
CMD ["npm", "start"]
