// The layers of docs/design.md, as a check npm test runs: a new engineer learns the rules from a
// failing check rather than from a review. Each rule says why in its comment.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules that import each other cannot be read, tested or moved one at a time.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-imports-nothing-outside',
      comment: 'The domain is pure rules: it knows no use case, adapter, store or configuration.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'app-not-adapters',
      comment: 'Use cases take their dependencies as arguments: they never reach into HTTP, pages, the sandbox or the composition root.',
      severity: 'error',
      from: { path: '^src/app/' },
      to: { path: '^src/(http|web|wallet|pay|console|sandbox|jobs)/|^src/(service|main)\\.ts$' },
    },
    {
      name: 'store-not-app',
      comment: 'Repositories know the database and the domain, not the use cases or the adapters above them.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/(app|http|web|wallet|pay|console|sandbox|jobs|mail|provider|prices|webhooks)/|^src/(service|main|config)\\.ts$' },
    },
    {
      name: 'contract-texts-and-template-are-leaves',
      comment: 'The API contract (contract/), the language catalogues (i18n/) and the HTML template (html/) are read by every layer above the domain, so they lean on nothing but the domain.',
      severity: 'error',
      from: { path: '^src/(contract|i18n|html)/' },
      to: { path: '^src/', pathNot: '^src/(domain|contract|i18n|html)/' },
    },
    {
      name: 'outbound-adapters-not-app',
      comment: 'The provider client, the treasury, prices, mail and webhooks turn the outside into domain terms for the use cases; they never call a use case back.',
      severity: 'error',
      from: { path: '^src/(provider|treasury|prices|mail|webhooks|net|secrets)/' },
      to: { path: '^src/app/' },
    },
    {
      name: 'sandbox-only-from-the-composition-root',
      comment: 'Sandbox mode is wired in one place: production code never imports the fakes.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(sandbox/|service\\.ts$|main\\.ts$)' },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'adapters-not-each-other',
      comment: 'Adapters at the edges do not lean on one another: HTTP routes do not import the job runner, the provider client or the mail transport directly; they are handed what they use.',
      severity: 'error',
      from: { path: '^src/(http|web|wallet|pay|console)/' },
      to: { path: '^src/(jobs|provider/eulen-client|mail/mailer)' },
    },
    // The wings: the API (http/), the Wallet, the payment pages, the console and the sandbox's
    // routes. Each stands on what lies below every wing (web/, contract/, html/, app/) and none
    // leans on another, so a wing can be read, changed or removed alone.
    {
      name: 'composition-root-registers-the-wings',
      comment: 'http/ builds the API and its app; the composition root (service.ts, sandbox/wiring.ts) registers the page wings on it. http/ importing a wing while the wing imports http/ is a two-way arrow between folders.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(wallet|console|pay|sandbox)/' },
    },
    {
      name: 'wings-not-the-api',
      comment: 'The page wings and the sandbox do not borrow the API\'s modules (its app, schemas, OpenAPI document): what they share lives below every wing, in web/ (HTTP parts) or contract/ (schemas).',
      severity: 'error',
      from: { path: '^src/(wallet|console|pay|sandbox)/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'wings-not-each-other',
      comment: 'The console does not import the Wallet (its sessions, sign-in or factor routes), nor any page wing another: shared page parts live in web/ and html/, shared rules in app/ and domain/.',
      severity: 'error',
      from: { path: '^src/(wallet|console|pay)/' },
      to: { path: '^src/(wallet|console|pay)/', pathNot: '^src/$1/' },
    },
    {
      name: 'web-below-the-wings',
      comment: 'web/ holds what every wing shares (page setup, sessions, errors, assets, second-factor routes): it leans on no wing.',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/(http|wallet|console|pay|sandbox)/' },
    },
    {
      name: 'http-routes-not-store',
      comment: 'The API\'s routes, readiness and metrics read and write through use cases (app/), as the pages do: they may name the store\'s types (the handle they pass on to a use case, a row type), never call a repository module or take its values.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/store/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'pages-reach-data-through-use-cases',
      comment: 'Pages and their routes read and write through use cases (app/): they may name the store\'s row types, never call a repository module or take its values.',
      severity: 'error',
      from: { path: '^src/(wallet|console|pay)/' },
      to: { path: '^src/store/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'wallet-names-row-types-only',
      comment: 'The Wallet hands the store to use cases and never calls it (test/domain/wallet-through-use-cases.test.ts): of the store it names the row types (schema.ts), not a repository\'s type, not even to write a helper of its own around one.',
      severity: 'error',
      from: { path: '^src/wallet/' },
      to: { path: '^src/store/', pathNot: '^src/store/schema\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|sdk/dist)' },
  },
}
