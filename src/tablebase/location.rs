//! Where tables are found when no folder is named: one place per user, shared by every
//! engine process, written by `vato tablebase build` when it is given no `--dir`.

use crate::data_folder::data_folder_from;
use std::path::PathBuf;

/// The environment variable that names the tables' folder; set to nothing, it switches the
/// default tables off.
pub const TABLEBASES_VARIABLE: &str = "VATO_TABLEBASES";

/// The default folder of the tables: `$VATO_TABLEBASES` when set (`None` when set to
/// nothing), else `vato/tablebases` in the user's data folder (`$XDG_DATA_HOME`, by
/// default `~/.local/share`); `None` when there is no home either.
pub fn default_dir() -> Option<PathBuf> {
    default_dir_from(|name| std::env::var_os(name))
}

/// [`default_dir`] with the environment read through `var`, for tests.
fn default_dir_from(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    data_folder_from(TABLEBASES_VARIABLE, "tablebases", var)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn with(pairs: &[(&str, &str)]) -> Option<PathBuf> {
        default_dir_from(|name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        })
    }

    #[test]
    fn the_variable_then_the_data_folder_then_home() {
        let home = [("HOME", "/home/u")];
        assert_eq!(
            with(&home),
            Some("/home/u/.local/share/vato/tablebases".into())
        );
        let xdg = [("HOME", "/home/u"), ("XDG_DATA_HOME", "/data")];
        assert_eq!(with(&xdg), Some("/data/vato/tablebases".into()));
        let relative = [("HOME", "/home/u"), ("XDG_DATA_HOME", "data")];
        assert_eq!(with(&relative), with(&home));
        let named = [("HOME", "/home/u"), (TABLEBASES_VARIABLE, "/tb")];
        assert_eq!(with(&named), Some("/tb".into()));
        let off = [("HOME", "/home/u"), (TABLEBASES_VARIABLE, "")];
        assert_eq!(with(&off), None);
        assert_eq!(with(&[]), None);
    }
}
