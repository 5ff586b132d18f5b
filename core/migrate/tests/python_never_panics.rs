//! Bad input never crashes the PyTorch checker (issue #21 item 1, the house's rule):
//! random model-like token soup, and every fixture model with a random line removed,
//! duplicated or truncated, are parsed, built and checked without a panic, and every
//! diagnostic's span stays inside the text.

#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use shapex_migrate::Migrate;
use shapex_report::{Language, Options};

fn analyze(src: &str) {
    let report = Migrate::new().analyze(src, &Options::new("py"));
    for d in &report.diagnostics {
        assert!(
            d.span.start <= d.span.end && d.span.end <= src.len(),
            "{d:?}"
        );
    }
}

const WORDS: &[&str] = &[
    "import torch\n",
    "class N(nn.Module):\n",
    "    def __init__(self, c=3):\n",
    "        super().__init__()\n",
    "        self.a = nn.Conv2d(c, 4, 3)\n",
    "        self.b = nn.Linear(4, 2)\n",
    "        self.s = nn.Sequential(*[nn.ReLU()])\n",
    "    def forward(self, x: TensorType((Dyn, 3, 8, 8))):\n",
    "        x = self.a(x)\n",
    "        x = x.view(x.size(0), -1)\n",
    "        if x.dim() == 2:\n",
    "            x = self.b(x)\n",
    "        return x @ x.t()\n",
    "model = N()\n",
    "for i in range(3):\n",
    "    pass\n",
    "(",
    ")",
    "[",
    "]",
    ":",
    "\n",
    "    ",
    "x",
    "-1",
    "**",
    "not ",
    "'s'",
    "\"\"\"",
    "\\\n",
    "self",
    ".",
    ",",
    "=",
    "+=",
    "lambda y: y",
    "yield",
    "@d\n",
    "while True:\n",
];

fn fixtures() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/py");
    std::fs::read_dir(dir)
        .map(|it| {
            it.filter_map(|e| e.ok())
                .filter(|e| e.path().extension().is_some_and(|x| x == "py"))
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .collect()
        })
        .unwrap_or_default()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn token_soup_never_panics(words in prop::collection::vec(0..WORDS.len(), 0..60)) {
        let src: String = words.iter().map(|&i| WORDS[i]).collect();
        analyze(&src);
    }

    #[test]
    fn damaged_fixture_models_never_panic(pick in 0usize..64, line in 0usize..400, how in 0u8..3, cut in 0usize..80) {
        let models = fixtures();
        prop_assume!(!models.is_empty());
        let src = &models[pick % models.len()];
        let mut lines: Vec<&str> = src.lines().collect();
        let k = line % lines.len().max(1);
        let truncated;
        match how {
            0 => { lines.remove(k.min(lines.len().saturating_sub(1))); }
            1 => { let l = lines[k]; lines.insert(k, l); }
            _ => {
                let l = lines[k];
                let mut end = cut.min(l.len());
                while !l.is_char_boundary(end) { end -= 1; }
                truncated = l[..end].to_string();
                lines[k] = &truncated;
            }
        }
        analyze(&lines.join("\n"));
    }
}
