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
