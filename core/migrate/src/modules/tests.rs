use super::layers::{Layer, Padding};
use super::value::{ModuleId, ModuleKind, Value};
use super::{build, Built};
use shapex_migrate_syntax::python::parse;

/// torchvision's ResNet-50, abridged but written the same way: the gallery's fixture.
pub const RESNET: &str = include_str!("../../../../tests/fixtures/py/resnet50.py");

fn module<'b>(built: &'b Built, id: ModuleId) -> &'b super::value::Module {
    built.eval.heap.get(id)
}

fn attr(built: &Built, id: ModuleId, name: &str) -> ModuleId {
    match module(built, id).attrs.get(name) {
        Some(Value::Module(m)) => *m,
        other => panic!("{name}: {other:?}"),
    }
}

fn layer<'b>(built: &'b Built, id: ModuleId) -> &'b Layer {
    match &module(built, id).kind {
        ModuleKind::Layer(l) => l,
        k => panic!("not a layer: {k:?}"),
    }
}

#[test]
fn resnet50_is_built_as_torchvision_builds_it() {
    let parsed = parse(RESNET);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let built = build(&parsed.module, None);
    let (name, root) = built.model.clone().expect("a model");
    assert_eq!(name, "model");
    assert_eq!(built.model_class().as_deref(), Some("ResNet"));
    let conv1 = attr(&built, root, "conv1");
    assert_eq!(
        layer(&built, conv1),
        &Layer::Conv2d {
            in_channels: Some(3),
            out_channels: Some(64),
            kernel: (Some(7), Some(7)),
            stride: (Some(2), Some(2)),
            padding: Padding::Explicit((Some(3), Some(3))),
            dilation: (Some(1), Some(1)),
            groups: Some(1),
        }
    );
    let Layer::Sequential(blocks) = layer(&built, attr(&built, root, "layer3")) else {
        panic!();
    };
    assert_eq!(blocks.len(), 6);
    // The first block of layer3 downsamples: 512 -> 1024 with stride 2.
    let down = attr(&built, blocks[0], "downsample");
    let Layer::Sequential(parts) = layer(&built, down) else {
        panic!();
    };
    assert!(matches!(
        layer(&built, parts[0]),
        Layer::Conv2d {
            in_channels: Some(512),
            out_channels: Some(1024),
            stride: (Some(2), Some(2)),
            ..
        }
    ));
    // Later blocks have no downsample.
    assert!(matches!(
        module(&built, blocks[1]).attrs.get("downsample"),
        Some(Value::None)
    ));
    let conv2 = attr(&built, blocks[1], "conv2");
    assert!(matches!(
        layer(&built, conv2),
        Layer::Conv2d {
            in_channels: Some(256),
            out_channels: Some(256),
            padding: Padding::Explicit((Some(1), Some(1))),
            ..
        }
    ));
    assert_eq!(
        layer(&built, attr(&built, root, "fc")),
        &Layer::Linear {
            in_features: Some(2048),
            out_features: Some(1000)
        }
    );
    assert!(built.eval.notes.is_empty(), "{:?}", built.eval.notes);
}

#[test]
fn the_model_is_chosen_by_name_then_last_instance_then_last_buildable_class() {
    let src = "import torch.nn as nn\nclass A(nn.Module):\n    def __init__(self, n=3):\n        super().__init__()\n        self.fc = nn.Linear(n, 2)\n    def forward(self, x):\n        return self.fc(x)\nclass B(nn.Module):\n    def __init__(self, k):\n        super().__init__()\n    def forward(self, x):\n        return x\n";
    let parsed = parse(src);
    let built = build(&parsed.module, None);
    assert_eq!(
        built.model_class().as_deref(),
        Some("A"),
        "B needs an argument"
    );
    let built = build(&parsed.module, Some("A"));
    assert_eq!(built.model_class().as_deref(), Some("A"));
    // A class that needs arguments is not built with made-up ones: the note says why.
    let built = build(&parsed.module, Some("B"));
    assert!(built.model.is_none());
    assert!(built
        .eval
        .notes
        .iter()
        .any(|d| d.message.contains("needs arguments")));
}

#[test]
fn a_configuration_that_raises_is_never_built_and_hostile_code_terminates() {
    let src = "class A:\n    def __init__(self):\n        raise ValueError('no')\n    def forward(self, x):\n        return x\n";
    let parsed = parse(src);
    let built = build(&parsed.module, None);
    assert!(built.model.is_none());
    let src = "def f(n):\n    return f(n + 1)\nclass A:\n    def __init__(self):\n        self.x = f(0)\n        while True:\n            pass\n    def forward(self, x):\n        return x\nx = [1]\nfor i in range(10000000):\n    x = x + x\n";
    let parsed = parse(src);
    let built = build(&parsed.module, None);
    assert!(built.eval.budget_spent() || built.model.is_some());
}

#[test]
fn sequential_of_star_layers_list_appends_and_module_lists() {
    let src = "import torch.nn as nn\nclass Net(nn.Module):\n    cfg = [64, 'M', 128]\n    def __init__(self):\n        super(Net, self).__init__()\n        layers = []\n        c = 3\n        for v in self.cfg:\n            if v == 'M':\n                layers += [nn.MaxPool2d(kernel_size=2, stride=2)]\n            else:\n                layers += [nn.Conv2d(c, v, kernel_size=3, padding=1), nn.ReLU(inplace=True)]\n                c = v\n        self.features = nn.Sequential(*layers)\n        self.heads = nn.ModuleList([nn.Linear(128, 10) for _ in range(2)])\n    def forward(self, x):\n        return x\n";
    let parsed = parse(src);
    let built = build(&parsed.module, None);
    let (_, root) = built.model.clone().expect("built");
    let Layer::Sequential(fs) = layer(&built, attr(&built, root, "features")) else {
        panic!();
    };
    assert_eq!(fs.len(), 5);
    assert!(matches!(
        layer(&built, fs[2]),
        Layer::MaxPool2d {
            stride: (Some(2), Some(2)),
            ..
        }
    ));
    assert!(matches!(
        layer(&built, fs[3]),
        Layer::Conv2d {
            in_channels: Some(64),
            out_channels: Some(128),
            ..
        }
    ));
    let Layer::ModuleList(hs) = layer(&built, attr(&built, root, "heads")) else {
        panic!();
    };
    assert_eq!(hs.len(), 2);
}
