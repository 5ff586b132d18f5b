use super::layers::{Layer, Padding};
use super::value::{ModuleId, ModuleKind, Value};
use super::{build, Built};
use shapex_migrate_syntax::python::parse;

/// torchvision's ResNet, abridged but written the same way.
pub const RESNET: &str = r#"
import torch.nn as nn

def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride,
                     padding=dilation, groups=groups, bias=False, dilation=dilation)

def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)

class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1,
                 base_width=64, dilation=1, norm_layer=None):
        super(Bottleneck, self).__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        width = int(planes * (base_width / 64.)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x

        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)

        out = self.conv2(out)
        out = self.bn2(out)
        out = self.relu(out)

        out = self.conv3(out)
        out = self.bn3(out)

        if self.downsample is not None:
            identity = self.downsample(x)

        out += identity
        out = self.relu(out)

        return out

class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000, zero_init_residual=False,
                 groups=1, width_per_group=64, replace_stride_with_dilation=None,
                 norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None "
                             "or a 3-element tuple, got {}".format(replace_stride_with_dilation))
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3,
                               bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2,
                                       dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2,
                                       dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2,
                                       dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride),
                norm_layer(planes * block.expansion),
            )

        layers = []
        layers.append(block(self.inplanes, planes, stride, downsample, self.groups,
                            self.base_width, previous_dilation, norm_layer))
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups,
                                base_width=self.base_width, dilation=self.dilation,
                                norm_layer=norm_layer))

        return nn.Sequential(*layers)

    def _forward_impl(self, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.relu(x)
        x = self.maxpool(x)

        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = self.layer4(x)

        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        x = self.fc(x)

        return x

    def forward(self, x: TensorType((Dyn, 3, 224, 224))):
        return self._forward_impl(x)

def _resnet(arch, block, layers, pretrained, progress, **kwargs):
    model = ResNet(block, layers, **kwargs)
    return model

def resnet50(pretrained=False, progress=True, **kwargs):
    return _resnet('resnet50', Bottleneck, [3, 4, 6, 3], pretrained, progress, **kwargs)

model = resnet50()
"#;

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
    let built = build(&parsed.module, Some("B"));
    assert_eq!(built.model_class().as_deref(), Some("B"));
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
