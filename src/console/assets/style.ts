/**
 * The console's one stylesheet, served as a static file under a name carrying its hash
 * (assets/routes.ts), so the CSP allows styles from 'self' only and browsers may cache it forever.
 * Colours meet WCAG AA contrast on their backgrounds; focus is always visible.
 */
export const STYLESHEET = `
:root{--fg:#1c2330;--muted:#4f5b6b;--bg:#f6f7f9;--card:#fff;--line:#d7dce3;--accent:#0b5cad;--accent-fg:#fff;
--danger:#a4161a;--ok:#1d6b37;--radius:8px;font-family:system-ui,-apple-system,"Segoe UI","Hiragino Sans","Noto Sans JP",sans-serif}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);line-height:1.55;font-size:16px}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible,select:focus-visible,summary:focus-visible
{outline:3px solid #f0a500;outline-offset:2px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:.5rem;background:#fff;padding:.4rem;z-index:2}
header.top{background:#14283f;color:#fff}
header.top .bar{max-width:80rem;margin:0 auto;padding:.5rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.2rem}
header.top a{color:#fff}
.brand{font-weight:700;text-decoration:none;font-size:1.1rem;margin-right:auto}
nav.main ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.2rem .9rem}
nav.main a{text-decoration:none;padding:.2rem 0;border-bottom:2px solid transparent}
nav.main a[aria-current=page]{border-bottom-color:#7fb8ff}
.langs{display:flex;gap:.6rem;font-size:.9rem}
.langs a[aria-current=true]{font-weight:700;text-decoration:none}
details.menu{position:relative}
details.menu summary{cursor:pointer;list-style:none;padding:.2rem .5rem;border:1px solid #5d7290;border-radius:var(--radius);white-space:nowrap}
details.menu summary::-webkit-details-marker{display:none}details.menu summary::after{content:" \\25BE"}
details.menu .panel{position:absolute;right:0;z-index:3;background:var(--card);color:var(--fg);border:1px solid var(--line);
border-radius:var(--radius);padding:.6rem .8rem;min-width:14rem;box-shadow:0 4px 16px rgba(0,0,0,.15)}
details.menu .panel a{color:var(--accent)}
details.menu .panel{max-width:calc(100vw - 1.5rem)}
details.compact{display:none}details.compact nav.main ul{flex-direction:column;gap:.3rem;margin-bottom:.6rem}
details.compact nav.main a[aria-current=page]{font-weight:700;border-bottom-color:var(--accent)}
@media (max-width:71.99rem){header.top .wide{display:none}header.top details.compact{display:block}}
.langs{white-space:nowrap}
main{max-width:64rem;margin:0 auto;padding:1.2rem 1rem 3rem}
main.narrow{max-width:30rem}
h1{font-size:1.5rem;margin:.4rem 0 1rem}h2{font-size:1.15rem;margin:1.6rem 0 .6rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:var(--radius);padding:1rem 1.2rem;margin:0 0 1rem}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:1rem;margin-bottom:1rem}
.cards .card{margin:0}.figure{font-size:1.6rem;font-weight:700}
label{display:block;font-weight:600;margin:.9rem 0 .25rem}
fieldset{border:1px solid var(--line);border-radius:var(--radius);margin:.9rem 0;padding:.4rem .9rem .8rem}
legend{font-weight:600;padding:0 .3rem}
fieldset label{font-weight:400;display:flex;gap:.5rem;align-items:flex-start;margin:.35rem 0}
input[type=email],input[type=password],input[type=text],input[type=url],input[type=number],textarea,select
{width:100%;padding:.5rem .6rem;border:1px solid #8a94a3;border-radius:6px;font:inherit;background:#fff;color:var(--fg)}
textarea{min-height:5rem}
[aria-invalid=true]{border-color:var(--danger);border-width:2px}
.field-error{color:var(--danger);font-weight:600;margin:.25rem 0 0}
.hint{color:var(--muted);font-size:.9rem;margin:.2rem 0 0}
button{font:inherit;cursor:pointer;border-radius:6px;padding:.45rem 1rem;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);margin:.9rem .5rem 0 0}
button.secondary{background:#fff;color:var(--accent)}
button.danger{background:#fff;color:var(--danger);border-color:var(--danger)}
button.link{background:none;border:none;color:var(--accent);padding:0;margin:0;text-decoration:underline}
form.inline{display:inline}form.inline button,td form button{margin:0}
button{white-space:nowrap}
.error{color:var(--danger)}.muted{color:var(--muted);font-size:.9rem}
.notice{border-left:4px solid var(--ok);background:#eef7f0;padding:.6rem .9rem;border-radius:4px}
.alert{border-left:4px solid var(--danger);background:#fbeeee;padding:.6rem .9rem;border-radius:4px}
.secret{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
.secret code{background:#eef1f5;padding:.4rem .6rem;border-radius:4px;word-break:break-all;flex:1 1 18rem}
.secret button{margin:0}
.pointer{border-left:4px solid var(--accent);background:#eaf2fb;padding:.6rem .9rem;border-radius:4px;margin:0 0 1rem}.pointer p{margin:.2rem 0}
fieldset.scope-group{border:none;padding:0;margin:.7rem 0 0}fieldset.scope-group legend{padding:0;color:var(--muted);font-size:.95rem}
fieldset label code{font-size:.85rem;color:var(--muted);overflow-wrap:anywhere}
.presets button{margin:.3rem .5rem 0 0}.presets p{margin:.3rem 0 0}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;background:var(--card)}
td,th{border-bottom:1px solid var(--line);padding:.45rem .5rem;text-align:left;vertical-align:top}
th{font-size:.9rem;color:var(--muted)}
td.long{overflow-wrap:anywhere}
.tag{display:inline-block;background:#e7eef8;color:#173a66;border-radius:4px;padding:0 .35rem;margin:0 .2rem .2rem 0;font-size:.85rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0;word-break:break-all}
@media (max-width:40rem){
 main{padding:1rem .75rem 2rem}h1{font-size:1.3rem}
 table.stack thead{display:none}table.stack tr{display:block;border-bottom:1px solid var(--line);padding:.4rem 0}
 table.stack td{display:block;border:none;padding:.15rem .3rem}
 table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:var(--muted)}
 dl.facts{grid-template-columns:1fr}
}
`;
