/// The stylesheet and script inlined into every HTML report (no external assets: the page must
/// work offline, from a CI artifact).
enum HTMLAssets {
    static let css = """
    :root{--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--soft:#f6f8fa;--pass:#1a7f37;--pass-bg:#dafbe1;\
    --fail:#cf222e;--fail-bg:#ffebe9;--skip:#9a6700;--skip-bg:#fff8c5;--known:#8250df;--known-bg:#fbefff;\
    --mono:ui-monospace,SFMono-Regular,"DejaVu Sans Mono",Menlo,Consolas,monospace}
    *{box-sizing:border-box}
    body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI","DejaVu Sans",Helvetica,Arial,sans-serif;color:var(--fg);background:#fff}
    main{max-width:1280px;margin:0 auto;padding:20px 24px 60px}
    h1{font-size:22px;margin:0 0 2px}
    h2{font-size:17px;margin:30px 0 10px;padding-bottom:6px;border-bottom:1px solid var(--line)}
    code{font-family:var(--mono);font-size:12.5px}
    .sub{color:var(--muted);margin:0}
    .totals{display:flex;flex-wrap:wrap;gap:8px;margin:14px 0 10px}
    .tot{border:1px solid var(--line);border-radius:6px;padding:5px 14px 6px;background:var(--soft);color:var(--muted);font-size:12px;min-width:84px}
    .tot b{display:block;font-size:20px;color:var(--fg);font-variant-numeric:tabular-nums}
    .tot.pass b{color:var(--pass)}.tot.hot{background:var(--fail-bg);border-color:#ffb8b3}.tot.hot b{color:var(--fail)}
    .tot.known b{color:var(--known)}
    .banner{border-radius:6px;padding:9px 14px;margin:8px 0;font-weight:600}
    .banner.partial{background:var(--skip-bg);border:1px solid #d4a72c;color:#7d4e00}
    .banner.bad{background:var(--fail-bg);border:1px solid #ff8182;color:var(--fail)}
    .banner.good{background:var(--pass-bg);border:1px solid #4ac26b;color:var(--pass)}
    .note,.legend,.none{color:var(--muted);font-size:12.5px}
    .scroll{overflow-x:auto}
    table{border-collapse:collapse}
    #matrix th,#matrix td{border:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
    #matrix thead th,#matrix tfoot th{background:var(--soft);font-size:12.5px}
    #matrix thead th{vertical-align:bottom}
    #matrix tbody th{font-family:var(--mono);font-size:13px;min-width:150px}
    #matrix tbody th small{display:block;font-family:system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;color:var(--muted);font-weight:400;font-size:11px;max-width:190px}
    td.cell{min-width:78px;font-size:13px;font-variant-numeric:tabular-nums}
    td.cell.empty{color:#afb8c1;text-align:center;vertical-align:middle}
    td.cell.ok{background:#f3fcf5}td.cell.bad{background:var(--fail-bg)}td.cell.skipped{background:#fffbea}
    td.cell .n{display:block}
    #matrix tfoot td,#matrix td[data-relation="all"]{background-color:var(--soft)}
    .n{white-space:nowrap;margin-right:8px}
    .n.pass{color:var(--pass)}.n.fail{color:var(--fail);font-weight:700}.n.skip{color:var(--skip)}.n.known{color:var(--known)}
    .v{display:inline-block;min-width:48px;text-align:center;font:700 10.5px/18px var(--mono);border-radius:4px;padding:0 4px;letter-spacing:.3px}
    .v.PASS{background:var(--pass-bg);color:var(--pass)}.v.FAIL,.v.ERROR{background:var(--fail-bg);color:var(--fail)}
    .v.SKIP{background:var(--skip-bg);color:var(--skip)}.v.KNOWN{background:var(--known-bg);color:var(--known)}
    article.f{border:1px solid var(--line);border-left:4px solid var(--fail);border-radius:6px;padding:10px 14px;margin:10px 0}
    article.f h3{font:600 13px/1.5 var(--mono);margin:0;word-break:break-all}
    .where{color:var(--muted);font-size:12px;margin:3px 0}
    .msg{font-weight:600;margin:6px 0;white-space:pre-wrap;word-break:break-word}
    pre{background:var(--soft);border-radius:6px;padding:8px 10px;overflow:auto;font:12px/1.45 var(--mono);margin:6px 0;max-height:380px;white-space:pre}
    .diff p{margin:8px 0 2px;font:600 12px var(--mono)}
    .diff pre{background:#fff;border:1px solid var(--line)}
    .diff .side{color:var(--muted)}
    .diff mark{background:#ffcecb;color:var(--fail);font-weight:700;border-radius:2px}
    .pr{color:var(--muted);font-size:12px;margin:4px 0}
    .pr b{color:var(--fg);font-weight:600}
    .toolbar{position:sticky;top:0;z-index:2;background:#fff;padding:8px 0;display:flex;flex-wrap:wrap;gap:10px;align-items:center;border-bottom:1px solid var(--line);margin-bottom:8px}
    #filter{flex:1;min-width:240px;max-width:460px;padding:6px 10px;border:1px solid var(--line);border-radius:6px;font:inherit}
    button{font:inherit;font-size:12.5px;padding:4px 10px;border:1px solid var(--line);border-radius:6px;background:var(--soft);cursor:pointer}
    label{font-size:12.5px;color:var(--muted);white-space:nowrap}
    #shown{color:var(--muted);font-size:12.5px;margin-left:auto}
    details.s{border:1px solid var(--line);border-radius:6px;margin:5px 0}
    details.s>summary{cursor:pointer;padding:6px 10px;display:flex;gap:10px;align-items:baseline}
    details.s[open]>summary{border-bottom:1px solid var(--line);background:var(--soft)}
    details.s .sn{font:600 13px var(--mono);flex:1;word-break:break-all}
    details.s.bad .sn{color:var(--fail)}
    details.s .sc{font-size:12.5px}
    details.s .st{color:var(--muted);font-size:12px;min-width:80px;text-align:right;font-variant-numeric:tabular-nums}
    details.s .sp{padding:6px 10px;margin:0;color:var(--muted);font-size:12px;word-break:break-word}
    table.cases{width:100%}
    .cases td{padding:2px 10px;border-top:1px solid #eaeef2;vertical-align:top}
    .cases tr.g td{background:#fbfcfd;font:600 11.5px var(--mono);color:var(--muted);padding-top:5px}
    .cases td:first-child{width:64px}
    .cases td.nm{font:12.5px/1.5 var(--mono);word-break:break-word}
    .cases td.nm .pr{display:block;font-family:system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;margin:0}
    .cases td.t{color:var(--muted);text-align:right;white-space:nowrap;font-size:12px;font-variant-numeric:tabular-nums;width:70px}
    table.props th{text-align:left;padding:2px 14px 2px 0;font:600 12.5px var(--mono);vertical-align:top}
    table.props td{padding:2px 0;font-size:12.5px;word-break:break-all}
    a{color:#0969da}
    [hidden]{display:none!important}
    """

    /// Filter (every word must appear in "suite classname.name properties"), failures-only switch,
    /// expand/collapse, `#filter=` in the address, and the count of shown testcases. Marks the
    /// body `data-ready="1"` when done, so a headless browser test knows the script ran.
    static let script = """
    (function(){'use strict';
    var nofail=document.getElementById('nofail'),input=document.getElementById('filter'),only=document.getElementById('problems'),shown=document.getElementById('shown');
    var suites=[].slice.call(document.querySelectorAll('details.s')),entries=[],groups=[];
    suites.forEach(function(d){var suite=d.getAttribute('data-suite'),cls='',group=null;
    [].forEach.call(d.querySelectorAll('table.cases tr'),function(tr){
    if(tr.className==='g'){cls=tr.textContent;group={row:tr,entries:[]};groups.push(group);return;}
    var e={row:tr,suite:d,problem:/\\bx\\b/.test(tr.className),key:(suite+' '+cls+'.'+tr.cells[1].textContent).toLowerCase()};
    entries.push(e);if(group)group.entries.push(e);});});
    var failures=[].slice.call(document.querySelectorAll('article.f')).map(function(a){
    return {el:a,key:(a.getAttribute('data-suite')+' '+a.querySelector('h3').textContent+' '+a.querySelector('.msg').textContent).toLowerCase()};});
    function matches(key,words){for(var i=0;i<words.length;i++){if(key.indexOf(words[i])<0)return false;}return true;}
    function apply(){var words=input.value.toLowerCase().split(/\\s+/).filter(Boolean),problemsOnly=only.checked,active=words.length>0||problemsOnly,count=0,per=new Map();
    entries.forEach(function(e){var ok=(!problemsOnly||e.problem)&&matches(e.key,words);e.row.hidden=!ok;
    if(ok){count++;per.set(e.suite,(per.get(e.suite)||0)+1);}});
    groups.forEach(function(g){g.row.hidden=!g.entries.some(function(e){return !e.row.hidden;});});
    suites.forEach(function(d){var n=per.get(d)||0;d.hidden=active&&n===0;if(active)d.open=n>0;});
    var fshown=0;failures.forEach(function(f){f.el.hidden=!matches(f.key,words);if(!f.el.hidden)fshown++;});
    if(nofail)nofail.hidden=!(failures.length>0&&fshown===0);
    shown.textContent=active?count+' of '+entries.length+' testcases match':entries.length+' testcases';
    shown.setAttribute('data-shown',String(count));}
    function fromHash(){var m=/[#&]filter=([^&]*)/.exec(location.hash);if(m){try{input.value=decodeURIComponent(m[1]);}catch(err){input.value=m[1];}}}
    input.addEventListener('input',function(){apply();try{history.replaceState(null,'',input.value?'#filter='+encodeURIComponent(input.value):location.pathname);}catch(err){}});
    only.addEventListener('change',apply);
    window.addEventListener('hashchange',function(){fromHash();apply();});
    document.getElementById('expand').addEventListener('click',function(){suites.forEach(function(d){if(!d.hidden)d.open=true;});});
    document.getElementById('collapse').addEventListener('click',function(){suites.forEach(function(d){d.open=false;});});
    fromHash();apply();document.body.setAttribute('data-ready','1');})();
    """
}
