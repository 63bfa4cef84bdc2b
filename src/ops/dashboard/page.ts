// The page shell: everything visible is rendered by /app.js (src/ops/dashboard/browser/app.ts) from the JSON API.
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Delay queue</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<main id="app"><p class="muted">Loading…</p></main>
<script type="module" src="/app.js"></script>
</body>
</html>
`
