// The stylesheet and script of /docs, served from /docs/assets so its CSP can forbid inline code.
// The page reads the same without the script; it only adds the copy buttons.

// At a phone's width nothing makes the page scroll sideways: code blocks scroll in their own box,
// long words (paths, codes) break, and a table's rows stack their cells, an error's texts under
// their labels.
export const docsCss = `
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem;overflow-wrap:break-word}
h1,h2,h3{overflow-wrap:anywhere}
nav{display:flex;flex-wrap:wrap;gap:.25rem .8rem}
.table{overflow-x:auto;margin:1rem 0}
table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}
tr:target{background:#fff3c4}
code,pre{background:#f4f4f4}
.code{display:flex;flex-direction:column;margin:1rem 0}
.code pre{margin:0;padding:.8rem;overflow-x:auto}
.code button{align-self:flex-end;font:inherit;font-size:.8rem;padding:.1rem .7rem;border:1px solid #ccc;border-bottom:0;border-radius:4px 4px 0 0;background:#fff;cursor:pointer}
@media (max-width:40rem){
table,tbody,tr,td{display:block}
tr:has(th){display:none}
tr{border-top:1px solid #ccc;padding:.4rem 0}
td{border:0;padding:.1rem 0;overflow-wrap:anywhere}
table.errors td:nth-child(-n+2){display:inline-block;margin-right:.8rem}
td[data-label]::before{content:attr(data-label);display:block;font-size:.85rem;font-weight:600}
}
`

/** Shows each block's copy button where the clipboard can be written; the label says when it is done. */
export const docsJs = `
document.querySelectorAll('.code button[data-copied]').forEach(function (button) {
  if (!navigator.clipboard) return
  var label = button.textContent
  button.hidden = false
  button.addEventListener('click', function () {
    navigator.clipboard.writeText(button.parentElement.querySelector('pre').textContent).then(function () {
      button.textContent = button.getAttribute('data-copied')
      setTimeout(function () { button.textContent = label }, 2000)
    })
  })
})
`
