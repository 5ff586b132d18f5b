use super::check_model;
use crate::modules::build;
use crate::types::{Dim, TensorType};
use shapex_migrate_syntax::python::parse;

fn check(src: &str) -> super::Checked {
    let parsed = parse(src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let built = build(&parsed.module, None);
    check_model(&built)
}

#[test]
fn resnet50_maps_n_3_224_224_to_n_1000() {
    let c = check(crate::modules::tests::RESNET);
    let errors: Vec<_> = c
        .diagnostics
        .iter()
        .filter(|d| d.code != "mig.unsupported")
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        c.output,
        Some(TensorType::tensor([Dim::Dyn, Dim::Nat(1000)]))
    );
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
}

#[test]
fn listing1_conv_channel_mismatch_is_an_error() {
    // Migeed et al. 2024, Listing 1 (PyTorch spelling): conv2 expects 4 channels,
    // but conv1 gives 2.
    let src = "import torch\nclass BasicBlock(torch.nn.Module):\n    def __init__(self):\n        super(BasicBlock, self).__init__()\n        self.conv1 = torch.nn.Conv2d(2, 2, 2)\n        self.conv2 = torch.nn.Conv2d(4, 2, 2)\n    def forward(self, x: TensorType((Dyn, Dyn, Dyn, Dyn))):\n        y = self.conv1(x)\n        return self.conv2(y)\n";
    let c = check(src);
    let codes: Vec<&str> = c.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["mig.conv2d"], "{:?}", c.diagnostics);
}

#[test]
fn shapes_flow_through_views_sizes_and_branches() {
    let src = "import torch\nimport torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(12, 5)\n    def forward(self, x: TensorType((8, 3, 4))):\n        b = x.size(0)\n        y = x.view(b, -1)\n        if y.dim() == 2:\n            z = self.fc(y)\n        else:\n            z = self.fc(x)\n        w = z.transpose(0, 1) @ z\n        return w\n";
    let c = check(src);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    assert_eq!(c.output, Some(TensorType::of(&[5, 5])));
    let bad = src.replace("nn.Linear(12, 5)", "nn.Linear(10, 5)");
    let c = check(&bad);
    assert!(
        c.diagnostics.iter().any(|d| d.code == "mig.linear"),
        "{:?}",
        c.diagnostics
    );
}

#[test]
fn branches_decided_by_types_are_impossible_and_asserts_refine() {
    let listing5 = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/py/listing5_rank_branch.py"
    ))
    .expect("fixture");
    let c = check(&listing5);
    let b: Vec<_> = c.branches.values().collect();
    assert_eq!(b.len(), 1);
    assert!(b[0].then_possible && !b[0].else_possible);
    let listing7 = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/py/listing7_reshape_branch.py"
    ))
    .expect("fixture");
    let c = check(&listing7);
    let b: Vec<_> = c.branches.values().collect();
    assert!(!b[0].then_possible && b[0].else_possible);
    // A branch on a Dyn size is undecided: both arms possible.
    let src = "import torch\nclass M(torch.nn.Module):\n    def forward(self, x: TensorType((Dyn, 3))):\n        if x.size(0) > 2:\n            return x\n        return x\n";
    let c = check(src);
    let b: Vec<_> = c.branches.values().collect();
    assert!(b[0].then_possible && b[0].else_possible);
    // Migeed et al. §4's walk-through: x: Dyn, then asserts give rank 4 and width 28470.
    let src = "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.conv1 = torch.nn.Conv2d(2, 2, 2, stride=2, padding=2, dilation=2)\n    def forward(self, x: Dyn):\n        assert x.dim() == 4\n        assert x.size(3) == 28470\n        return self.conv1(x)\n";
    let c = check(src);
    assert_eq!(
        c.output,
        Some(TensorType::tensor([
            Dim::Dyn,
            Dim::Nat(2),
            Dim::Dyn,
            Dim::Nat(14236)
        ]))
    );
    // An assertion static types contradict is an error.
    let src = "import torch\nclass M(torch.nn.Module):\n    def forward(self, x: TensorType((2, 3))):\n        assert x.shape == (2, 4)\n        return x\n";
    let c = check(src);
    assert!(
        c.diagnostics.iter().any(|d| d.code == "mig.assert"),
        "{:?}",
        c.diagnostics
    );
}
