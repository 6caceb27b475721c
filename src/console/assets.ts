// The console's only stylesheet: the Wallet's, and what tables of work need besides (wider pages,
// queue counts, the timeline). Served from /console/assets so the CSP can forbid inline style.
import { walletCss } from '../web/page-assets.ts'

export const consoleCss = `${walletCss}
main{max-width:76rem}
.top{background:#1f2a44}
.who{opacity:.85;font-size:.9rem}
ul.queues{list-style:none;padding:0;display:grid;gap:.5rem;grid-template-columns:repeat(auto-fill,minmax(16rem,1fr))}
ul.queues a{display:flex;gap:.75rem;align-items:center;background:#fff;border:1px solid #d8dee4;border-radius:8px;padding:.75rem 1rem;text-decoration:none;color:inherit}
ul.queues .count{font-size:1.5rem;font-weight:700;min-width:2.5rem;text-align:right;font-variant-numeric:tabular-nums;color:#57606a}
ul.queues li.busy .count{color:#b35900}
.card.row3{grid-template-columns:1fr 1fr auto;align-items:end}
.decisions{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr))}
.decisions .card{margin:0}
h3{font-size:1rem;margin:0}
button.danger{background:#b3261e}
.warn{color:#b3261e}
dl.facts{background:#fff;border:1px solid #d8dee4;border-radius:8px;padding:.75rem 1rem}
dl.facts dd{overflow-wrap:anywhere}
ol.timeline{list-style:none;padding:0;margin:0;border-left:3px solid #d8dee4}
ol.timeline>li{padding:.4rem .75rem;margin-left:.25rem;border-bottom:1px solid #e6eaee;overflow-wrap:anywhere}
ol.timeline>li.audit{background:#eef3ff}
ul.entries{margin:.25rem 0 0;padding-left:1rem;font-size:.85rem}
pre{white-space:pre-wrap;word-break:break-all;font-size:.75rem;background:#f6f8fa;border:1px solid #e6eaee;border-radius:6px;padding:.5rem;margin:.25rem 0;max-height:24rem;overflow:auto}
table.audit pre{max-height:8rem}
tr.short td{color:#b3261e;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
nav.pages{display:flex;gap:1rem;margin:1rem 0}
ul.blocks{padding-left:1rem}
input[type=search],input[type=number]{font:inherit;padding:.55rem .6rem;border:1px solid #aab4be;border-radius:6px;width:100%;background:#fff}
@media (max-width:30rem){.card.row3{grid-template-columns:1fr}table{display:block;overflow-x:auto}table.stack{display:table}table.stack thead{display:none}table.stack tr{display:block;border-bottom:2px solid #d8dee4}table.stack td{display:flow-root;padding-left:7.5rem;border:0}table.stack td::before{content:attr(data-label);font-weight:600;float:left;width:6.5rem;margin-left:-7rem}}
`
