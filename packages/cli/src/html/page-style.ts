/** The pages' stylesheet: light and dark by the reader's setting, readable down to a phone's width. */
export const PAGE_STYLE = `
:root{--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#d8dde3;--card:#f6f8fa;--loop:#b42318;--stall:#b54708;--fault:#6941c6;--recovery:#067647;--span:#fff4e5;--repeat:#ffe3d6;--ok:#067647;--bad:#b42318;--link:#0b5cad;--focus:#0b5cad}
@media (prefers-color-scheme:dark){:root{--bg:#0f1217;--fg:#e6e9ee;--muted:#9aa4b1;--line:#2b323c;--card:#171b22;--loop:#ff8a80;--stall:#ffb74d;--fault:#c5a3ff;--recovery:#6fdc9c;--span:#2a2111;--repeat:#3b1f18;--ok:#6fdc9c;--bad:#ff8a80;--link:#8ab4f8;--focus:#8ab4f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:1100px;margin:0 auto;padding:16px}
a{color:var(--link)}
:focus-visible{outline:2px solid var(--focus);outline-offset:2px}
h1{font-size:1.3rem;margin:0 0 4px;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:20px 0 8px}
.muted{color:var(--muted);overflow-wrap:anywhere}
.cards{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 12px;min-width:140px;flex:1 1 140px}
.card{min-width:0}.card b{display:block;font-size:1.25rem;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th button{font:inherit;font-weight:600;background:none;border:0;color:inherit;cursor:pointer;padding:0}
.table-wrap{overflow-x:auto}
.kind{display:inline-block;border-radius:10px;padding:0 7px;font-size:.78rem;font-weight:600;border:1px solid currentColor;white-space:nowrap}
.kind-loop{color:var(--loop)}.kind-stall{color:var(--stall)}.kind-fault{color:var(--fault)}.kind-recovery{color:var(--recovery)}
.events{list-style:none;padding:0;margin:0}
.events li{padding:6px 0;border-bottom:1px solid var(--line)}
.inc-link{display:inline-block;margin:2px 6px 2px 0;text-decoration:none;border-radius:6px;padding:1px 6px;background:var(--card);border:1px solid var(--line);color:var(--fg)}
.inc-link:hover{border-color:var(--focus)}
.step{border:1px solid var(--line);border-radius:8px;margin:8px 0;padding:8px 12px;content-visibility:auto;contain-intrinsic-size:auto 90px;scroll-margin-top:12px}
.step.in-span{background:var(--span);border-left:4px solid var(--stall)}
.step.has-incident{border-left:4px solid var(--loop)}
.step:target,.step.focused{box-shadow:0 0 0 2px var(--focus)}
.step header{display:flex;flex-wrap:wrap;gap:6px;align-items:baseline}
.step .n{font-weight:700;text-decoration:none}
.chip{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;border:1px solid var(--line);border-radius:5px;padding:0 5px;background:var(--card)}
.chip.bad{color:var(--bad);border-color:var(--bad)}.chip.ok{color:var(--ok)}.chip.mark{color:var(--fault);border-color:var(--fault);font-weight:600}
.user{border-left:3px solid var(--muted);padding-left:8px;margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:6px 0}
details{margin:4px 0;border-radius:6px}
details.call.repeated>summary{background:var(--repeat)}
summary{cursor:pointer;padding:2px 4px;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--card);border:1px solid var(--line);border-radius:6px;padding:6px 8px;margin:4px 0;font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;max-height:28em;overflow:auto}
.diff .add{color:var(--ok)}.diff .del{color:var(--bad)}
.step-incidents{list-style:none;margin:6px 0 0;padding:0}
.step-incidents li{margin:2px 0;overflow-wrap:anywhere}
.notes li{overflow-wrap:anywhere}
.keys{font-size:.85rem}
#goto{margin:6px 0}#goto input{width:7em;font:inherit;background:var(--card);color:var(--fg);border:1px solid var(--line);border-radius:4px;padding:1px 4px}
#goto button{font:inherit;background:var(--card);color:var(--fg);border:1px solid var(--line);border-radius:4px}
@media (max-width:600px){main{padding:8px}.card{flex-basis:45%}body{font-size:14px}}
`
