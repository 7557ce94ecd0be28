//! How a setting is declared: its [`Descriptor`] and the `declare_settings!` macro that
//! `table.rs` calls once. This file imports nothing (the names the macro's output uses are
//! resolved in `table.rs`, where it expands), so the config file reader (`file.rs`) and
//! the layers (`layers.rs`) take the descriptors from here, and the table is handed to the
//! file reader as an argument rather than imported by it.

/// One declared setting: its name in the config file and the layers that may set it.
#[derive(Debug)]
pub struct Descriptor {
    /// The config file's key (and the setting's name in `config show`).
    pub name: &'static str,
    /// What it sets (the declaration's doc comment).
    pub doc: &'static str,
    /// The flag that sets it, e.g. `--timeout`.
    pub flag: Option<&'static str>,
    /// The environment variable that sets it.
    pub env: Option<&'static str>,
    /// Whether the config file may set it.
    pub file: bool,
}

/// Declares every setting once: `name: Type = DEFAULT, flag: …, env: …, file: …;` with
/// its doc comment. Generates `Values` (one `Setting<Type>` field each), `DECLARED` (their
/// descriptors, in order), `descriptor` (one of them by name) and `Values::resolve` /
/// `Values::shown`, which call `resolve_one` and `Shown::of` from `layers.rs`.
macro_rules! declare_settings {
    ($(
        $(#[doc = $doc:literal])+
        $name:ident : $ty:ty = $default:expr,
            flag: $flag:expr, env: $env:expr, file: $file:expr;
    )+) => {
        /// Every declared setting, resolved.
        #[derive(Debug, Clone)]
        pub struct Values {
            $( $(#[doc = $doc])+ pub $name: Setting<$ty>, )+
        }

        /// The declared settings' descriptors, in the order `config show` prints them.
        pub const DECLARED: &[Descriptor] = &[ $(
            Descriptor {
                name: stringify!($name),
                doc: concat!($($doc),+),
                flag: $flag,
                env: $env,
                file: $file,
            },
        )+ ];

        /// The descriptor of the declared setting `name`.
        fn descriptor(name: &str) -> &'static Descriptor {
            DECLARED
                .iter()
                .find(|d| d.name == name)
                .expect("every declared setting has a descriptor")
        }

        impl Values {
            /// Each setting from its highest layer that holds a value.
            pub fn resolve(inputs: &Inputs<'_>) -> Result<Self, TrawlError> {
                Ok(Values { $(
                    $name: resolve_one(descriptor(stringify!($name)), inputs, || $default)?,
                )+ })
            }

            /// Each setting as `config show` prints it, in declaration order.
            pub fn shown(&self) -> Vec<Shown> {
                vec![ $( Shown::of(descriptor(stringify!($name)), &self.$name), )+ ]
            }
        }
    };
}
pub(crate) use declare_settings;
