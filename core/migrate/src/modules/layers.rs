//! The `torch.nn` layers the checker knows, built from their constructor arguments as
//! PyTorch binds them (positional, then keywords, then PyTorch's defaults). A
//! parameter that is not a known integer stays `None`: the layer is still built and
//! the checker treats that parameter as `Dyn`.

use super::value::{dict_pairs, ModuleId, Value};
use serde::Serialize;

/// A pair of integers (`kernel_size=3` is `(3, 3)`), each unknown if not constant.
pub type Pair = (Option<i64>, Option<i64>);

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Padding {
    Explicit(Pair),
    /// `padding='same'`: the output has the input's size (stride 1).
    Same,
    /// `padding='valid'`: no padding.
    Valid,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Layer {
    Conv2d {
        in_channels: Option<i64>,
        out_channels: Option<i64>,
        kernel: Pair,
        stride: Pair,
        padding: Padding,
        dilation: Pair,
        groups: Option<i64>,
    },
    ConvTranspose2d {
        in_channels: Option<i64>,
        out_channels: Option<i64>,
        kernel: Pair,
        stride: Pair,
        padding: Pair,
        output_padding: Pair,
        dilation: Pair,
    },
    Linear {
        in_features: Option<i64>,
        out_features: Option<i64>,
    },
    BatchNorm2d {
        num_features: Option<i64>,
    },
    BatchNorm1d {
        num_features: Option<i64>,
    },
    MaxPool2d {
        kernel: Pair,
        stride: Pair,
        padding: Pair,
        dilation: Pair,
        ceil_mode: Option<bool>,
    },
    AvgPool2d {
        kernel: Pair,
        stride: Pair,
        padding: Pair,
        ceil_mode: Option<bool>,
    },
    /// `AdaptiveAvgPool2d` / `AdaptiveMaxPool2d`: an entry `None` keeps the input's.
    AdaptivePool2d {
        output: (Option<Option<i64>>, Option<Option<i64>>),
    },
    Embedding {
        num_embeddings: Option<i64>,
        embedding_dim: Option<i64>,
    },
    LayerNorm {
        /// `None` when not a constant list of integers.
        normalized_shape: Option<Vec<i64>>,
    },
    Flatten {
        start_dim: Option<i64>,
        end_dim: Option<i64>,
    },
    /// einops' `Rearrange(pattern, **axis_sizes)` layer.
    Rearrange {
        pattern: String,
        sizes: Vec<(String, Option<i64>)>,
    },
    /// Shape-preserving layers: activations, dropout, `Identity`.
    Pointwise(String),
    Sequential(Vec<ModuleId>),
    ModuleList(Vec<ModuleId>),
    /// A `torch.nn` layer the checker does not model: its output is `Dyn`.
    Other(String),
}

/// The arguments of a call, evaluated.
#[derive(Clone, Debug, Default)]
pub struct Args {
    pub positional: Vec<Value>,
    pub keywords: Vec<(String, Value)>,
}

impl Args {
    /// The argument bound to parameter `name` at position `pos` (PyTorch's order).
    pub fn get(&self, pos: usize, name: &str) -> Option<&Value> {
        self.keywords
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
            .or_else(|| self.positional.get(pos))
    }

    fn int(&self, pos: usize, name: &str, default: Option<i64>) -> Option<i64> {
        match self.get(pos, name) {
            Some(v) => v.as_int(),
            None => default,
        }
    }

    fn pair(&self, pos: usize, name: &str, default: Option<i64>) -> Pair {
        match self.get(pos, name) {
            Some(v) => pair_of(v),
            None => (default, default),
        }
    }

    fn flag(&self, pos: usize, name: &str, default: bool) -> Option<bool> {
        match self.get(pos, name) {
            Some(Value::Bool(b)) => Some(*b),
            Some(Value::Int(i)) => Some(*i != 0),
            Some(_) => None,
            None => Some(default),
        }
    }
}

fn pair_of(v: &Value) -> Pair {
    if let Some(i) = v.as_int() {
        return (Some(i), Some(i));
    }
    match v.items().as_deref() {
        Some([a, b]) => (a.as_int(), b.as_int()),
        _ => (None, None),
    }
}

/// Shape-preserving `torch.nn` layers.
const POINTWISE: &[&str] = &[
    "ReLU",
    "ReLU6",
    "LeakyReLU",
    "PReLU",
    "ELU",
    "SELU",
    "CELU",
    "GELU",
    "SiLU",
    "Mish",
    "Sigmoid",
    "Tanh",
    "Hardtanh",
    "Hardswish",
    "Hardsigmoid",
    "Softplus",
    "Softsign",
    "Softmax",
    "LogSoftmax",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "AlphaDropout",
    "Identity",
    "InstanceNorm2d",
    "GroupNorm",
    "LocalResponseNorm",
];

/// The layer `torch.nn.<name>(args)` builds; `modules` resolves the items of a
/// `Sequential` / `ModuleList` to modules (`None` if one is not a module).
pub fn layer(name: &str, args: &Args, modules: impl Fn(&Value) -> Option<Vec<ModuleId>>) -> Layer {
    match name {
        "Conv2d" => Layer::Conv2d {
            in_channels: args.int(0, "in_channels", None),
            out_channels: args.int(1, "out_channels", None),
            kernel: args.pair(2, "kernel_size", None),
            stride: args.pair(3, "stride", Some(1)),
            padding: match args.get(4, "padding") {
                Some(Value::Str(s)) if s == "same" => Padding::Same,
                Some(Value::Str(s)) if s == "valid" => Padding::Valid,
                Some(v) => Padding::Explicit(pair_of(v)),
                None => Padding::Explicit((Some(0), Some(0))),
            },
            dilation: args.pair(5, "dilation", Some(1)),
            groups: args.int(6, "groups", Some(1)),
        },
        "ConvTranspose2d" => Layer::ConvTranspose2d {
            in_channels: args.int(0, "in_channels", None),
            out_channels: args.int(1, "out_channels", None),
            kernel: args.pair(2, "kernel_size", None),
            stride: args.pair(3, "stride", Some(1)),
            padding: args.pair(4, "padding", Some(0)),
            output_padding: args.pair(5, "output_padding", Some(0)),
            dilation: args.pair(8, "dilation", Some(1)),
        },
        "Rearrange" => match args.positional.first() {
            Some(Value::Str(pattern)) => Layer::Rearrange {
                pattern: pattern.clone(),
                sizes: args
                    .keywords
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_int()))
                    .collect(),
            },
            _ => Layer::Other("Rearrange without a pattern".into()),
        },
        "Linear" => Layer::Linear {
            in_features: args.int(0, "in_features", None),
            out_features: args.int(1, "out_features", None),
        },
        "BatchNorm2d" => Layer::BatchNorm2d {
            num_features: args.int(0, "num_features", None),
        },
        "BatchNorm1d" => Layer::BatchNorm1d {
            num_features: args.int(0, "num_features", None),
        },
        "MaxPool2d" => {
            let kernel = args.pair(0, "kernel_size", None);
            Layer::MaxPool2d {
                kernel,
                stride: stride_or_kernel(args, kernel),
                padding: args.pair(2, "padding", Some(0)),
                dilation: args.pair(3, "dilation", Some(1)),
                ceil_mode: args.flag(5, "ceil_mode", false),
            }
        }
        "AvgPool2d" => {
            let kernel = args.pair(0, "kernel_size", None);
            Layer::AvgPool2d {
                kernel,
                stride: stride_or_kernel(args, kernel),
                padding: args.pair(2, "padding", Some(0)),
                ceil_mode: args.flag(3, "ceil_mode", false),
            }
        }
        "AdaptiveAvgPool2d" | "AdaptiveMaxPool2d" => {
            let entry = |v: &Value| match v {
                Value::None => Some(None),
                v => v.as_int().map(Some),
            };
            let output = match args.get(0, "output_size") {
                Some(v) => match (v.as_int(), v.items().as_deref()) {
                    (Some(i), _) => (Some(Some(i)), Some(Some(i))),
                    (None, Some([a, b])) => (entry(a), entry(b)),
                    _ => (None, None),
                },
                None => (None, None),
            };
            Layer::AdaptivePool2d { output }
        }
        "Embedding" => Layer::Embedding {
            num_embeddings: args.int(0, "num_embeddings", None),
            embedding_dim: args.int(1, "embedding_dim", None),
        },
        "LayerNorm" => Layer::LayerNorm {
            normalized_shape: args
                .get(0, "normalized_shape")
                .and_then(|v| match v.as_int() {
                    Some(i) => Some(vec![i]),
                    None => v
                        .items()?
                        .iter()
                        .map(Value::as_int)
                        .collect::<Option<Vec<i64>>>(),
                }),
        },
        "Flatten" => Layer::Flatten {
            start_dim: args.int(0, "start_dim", Some(1)),
            end_dim: args.int(1, "end_dim", Some(-1)),
        },
        "Sequential" => {
            // `Sequential(a, b)`, `Sequential(*layers)`, `Sequential(OrderedDict([…]))`.
            let named: Option<Vec<Value>> = match args.positional.as_slice() {
                [one] => dict_pairs(one).map(|ps| ps.into_iter().map(|(_, v)| v).collect()),
                _ => None,
            };
            let items: Option<Vec<ModuleId>> = named
                .as_ref()
                .unwrap_or(&args.positional)
                .iter()
                .map(|v| modules(v).filter(|m| m.len() == 1).map(|m| m[0]))
                .collect();
            match items {
                Some(ids) => Layer::Sequential(ids),
                None => Layer::Other("Sequential of something other than modules".into()),
            }
        }
        "ModuleList" => match args.get(0, "modules").map(&modules) {
            Some(Some(ids)) => Layer::ModuleList(ids),
            None => Layer::ModuleList(Vec::new()),
            Some(None) => Layer::Other("ModuleList of something other than modules".into()),
        },
        n if POINTWISE.contains(&n) => Layer::Pointwise(n.to_string()),
        n => Layer::Other(n.to_string()),
    }
}

fn stride_or_kernel(args: &Args, kernel: Pair) -> Pair {
    match args.get(1, "stride") {
        None | Some(Value::None) => kernel,
        Some(v) => pair_of(v),
    }
}
