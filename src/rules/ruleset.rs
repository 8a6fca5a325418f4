//! Rule options: the few places where rule sheets differ, with this project's defaults.

/// Whether a capturing stone must go on capturing while it can.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum ChainRule {
    /// The player may end the turn after any capturing step (the default).
    #[default]
    Optional,
    /// The turn ends only when the stone has no further capturing step.
    Mandatory,
}

impl ChainRule {
    /// [`ChainRule::Mandatory`] when `mandatory` is set, else the default.
    pub const fn mandatory_if(mandatory: bool) -> ChainRule {
        if mandatory {
            ChainRule::Mandatory
        } else {
            ChainRule::Optional
        }
    }
}

/// The default of [`Rules::no_capture_limit`].
pub const DEFAULT_NO_CAPTURE_LIMIT: u32 = 100;

/// The rule options in force for a game. Engine and match runner share them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Turns (plies, both sides counted) without a capture after which the game is drawn;
    /// 0 switches the limit off.
    pub no_capture_limit: u32,
    /// Whether capture chains may stop early.
    pub chain_rule: ChainRule,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            no_capture_limit: DEFAULT_NO_CAPTURE_LIMIT,
            chain_rule: ChainRule::Optional,
        }
    }
}
