/// Tender's one design system: a style sheet of its own (system fonts, light and dark by
/// `prefers-color-scheme`, contrast of at least 4.5:1 for text, visible focus), served at
/// `/assets/tender.css` for the console and the other pages. Nothing is loaded from elsewhere.
enum DesignSystem {
    static let path = "/assets/tender.css"

    static let styleSheet = """
        :root {
          color-scheme: light dark;
          --bg: #f6f7f9; --surface: #ffffff; --text: #1b1f24; --muted: #4f5864; --line: #d5dae0;
          --accent: #1f5fd1; --accent-text: #ffffff; --good: #11703a; --bad: #b3261e; --warn: #8a5a00;
          --good-bg: #e3f4e9; --bad-bg: #fbe6e4; --warn-bg: #fdf1d8; --neutral-bg: #eceff3;
          --radius: 8px; --gap: 16px;
          font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
          font-size: 16px; line-height: 1.5;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #111418; --surface: #1a1f25; --text: #e8ebef; --muted: #a7b0bb; --line: #38414b;
            --accent: #7eaaff; --accent-text: #0b1526; --good: #6fd69a; --bad: #ff9a8f; --warn: #f2c46d;
            --good-bg: #173224; --bad-bg: #3b1c1a; --warn-bg: #3a2d12; --neutral-bg: #252c34;
          }
        }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--text); }
        a { color: var(--accent); }
        a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible {
          outline: 3px solid var(--accent); outline-offset: 2px;
        }
        .skip { position: absolute; left: -999px; top: 0; background: var(--surface); padding: 8px; }
        .skip:focus { left: 8px; z-index: 10; }
        .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        header.bar { background: var(--surface); border-bottom: 1px solid var(--line); }
        header.bar .inner { max-width: 1100px; margin: 0 auto; padding: 8px var(--gap); display: flex; flex-wrap: wrap; gap: 8px 20px; align-items: center; }
        .brand { font-weight: 700; font-size: 1.1rem; color: var(--text); text-decoration: none; margin-right: auto; }
        nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
        nav a { text-decoration: none; padding: 4px 0; display: inline-block; }
        nav a[aria-current="page"] { font-weight: 700; border-bottom: 2px solid var(--accent); }
        main { max-width: 1100px; margin: 0 auto; padding: var(--gap); }
        h1 { font-size: 1.5rem; margin: 8px 0 16px; }
        h2 { font-size: 1.15rem; margin: 0 0 12px; }
        .muted { color: var(--muted); }
        .grid { display: grid; gap: var(--gap); grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); margin-bottom: var(--gap); }
        .card { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); padding: var(--gap); margin-bottom: var(--gap); min-width: 0; }
        .figure { font-size: 1.6rem; font-weight: 700; margin: 0; }
        .table-wrap { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { color: var(--muted); font-weight: 600; font-size: 0.9rem; }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
        code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; overflow-wrap: anywhere; }
        .badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 0.85rem; background: var(--neutral-bg); color: var(--text); }
        .badge.good { background: var(--good-bg); color: var(--good); }
        .badge.bad { background: var(--bad-bg); color: var(--bad); }
        .badge.warn { background: var(--warn-bg); color: var(--warn); }
        form.filters { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: flex-end; }
        form.filters > label, .actions label { min-width: 0; max-width: 100%; }
        label { display: block; font-size: 0.9rem; color: var(--muted); }
        input, select, textarea { font: inherit; color: var(--text); background: var(--surface); border: 1px solid var(--muted); border-radius: 6px; padding: 6px 8px; max-width: 100%; }
        label > input, label > select { display: block; margin-top: 2px; color: var(--text); }
        fieldset { border: 1px solid var(--line); border-radius: var(--radius); padding: 8px 12px; margin: 12px 0; }
        fieldset label { display: flex; align-items: center; gap: 8px; color: var(--text); padding: 4px 0; }
        fieldset label > input { display: inline; margin: 0; }
        .test-page h2 { margin-top: var(--gap); }
        button, .button { font: inherit; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-text); border-radius: 6px; padding: 6px 14px; cursor: pointer; text-decoration: none; display: inline-block; }
        button.secondary { background: transparent; color: var(--accent); }
        button.danger { background: var(--bad); border-color: var(--bad); color: var(--surface); }
        .notice { border-left: 4px solid var(--good); background: var(--good-bg); padding: 8px 12px; margin-bottom: var(--gap); }
        .notice.error { border-color: var(--bad); background: var(--bad-bg); }
        dl.facts { display: grid; grid-template-columns: minmax(120px, max-content) 1fr; gap: 6px 16px; margin: 0; }
        dl.facts dt { color: var(--muted); }
        dl.facts dd { margin: 0; overflow-wrap: anywhere; }
        ol.timeline { list-style: none; padding: 0; margin: 0; border-left: 2px solid var(--line); }
        ol.timeline li { padding: 4px 0 10px 14px; position: relative; overflow-wrap: anywhere; }
        ol.timeline li::before { content: ""; position: absolute; left: -6px; top: 11px; width: 10px; height: 10px; border-radius: 50%; background: var(--accent); }
        .actions { display: flex; flex-wrap: wrap; gap: var(--gap); }
        .actions form { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-end; }
        ul.links { list-style: none; padding: 0; margin: 0 0 12px; display: flex; flex-wrap: wrap; gap: 4px 16px; }
        .pager { display: flex; gap: var(--gap); margin-top: 12px; }
        svg.chart { width: 100%; height: auto; display: block; }
        svg.chart .bar { fill: var(--accent); }
        svg.chart .axis { stroke: var(--line); }
        svg.chart text { fill: var(--muted); font-size: 11px; font-family: inherit; }
        .signin { max-width: 420px; margin: 10vh auto; }
        .signin input { width: 100%; }
        .signin button { margin-top: 12px; width: 100%; }
        @media (max-width: 600px) {
          main { padding: 10px; }
          th.optional, td.optional { display: none; }
          dl.facts { grid-template-columns: 1fr; gap: 0 0; }
          dl.facts dd { margin-bottom: 8px; }
        }
        """
}
