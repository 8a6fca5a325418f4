//! Rule options: the few places where rule sheets differ, with this project's defaults.

use crate::rules::board::Board;
use crate::rules::movegen::generate_turns;
use crate::rules::position::{Color, Position};
use crate::rules::turn::Turn;
use crate::rules::vela::generate_vela_turns;

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
    /// In a vela game, the side it favours (see [`crate::rules::vela`]); `None` for an
    /// ordinary game.
    pub vela: Option<Color>,
    /// The board: Tsivy's or Dimy's. Positions carry their board too; this says which
    /// one a new game starts on.
    pub board: Board,
}

impl Rules {
    /// The position a new game starts from: the board's start, with the favoured side to
    /// move in a vela game (so Black first when the vela favours Black).
    pub fn start(&self) -> Position {
        let start = Position::start_on(self.board);
        match self.vela {
            Some(Color::Black) => start.with_turn_passed(),
            _ => start,
        }
    }

    /// The part of the rules that decides which turns are legal.
    pub const fn turn_rules(&self) -> TurnRules {
        TurnRules {
            chain_rule: self.chain_rule,
            vela: self.vela,
        }
    }
}

/// What decides which turns are legal in a position: the chain rule and, in a vela game,
/// the side it favours. A [`ChainRule`] alone converts into the rules of an ordinary game.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TurnRules {
    /// Whether capture chains may stop early.
    pub chain_rule: ChainRule,
    /// The side a vela game favours, if it is one.
    pub vela: Option<Color>,
}

impl TurnRules {
    /// Fills `out` (cleared first) with every legal turn.
    #[inline]
    pub fn generate(&self, position: &Position, out: &mut Vec<Turn>) {
        match self.vela {
            None => generate_turns(position, self.chain_rule, out),
            Some(beneficiary) => generate_vela_turns(position, beneficiary, self.chain_rule, out),
        }
    }

    /// Every legal turn, in generation order (allocates).
    pub fn legal_turns(&self, position: &Position) -> Vec<Turn> {
        let mut turns = Vec::new();
        self.generate(position, &mut turns);
        turns
    }
}

impl From<ChainRule> for TurnRules {
    fn from(chain_rule: ChainRule) -> TurnRules {
        TurnRules {
            chain_rule,
            vela: None,
        }
    }
}

impl From<&Rules> for TurnRules {
    fn from(rules: &Rules) -> TurnRules {
        rules.turn_rules()
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            no_capture_limit: DEFAULT_NO_CAPTURE_LIMIT,
            chain_rule: ChainRule::Optional,
            vela: None,
            board: Board::Tsivy,
        }
    }
}
