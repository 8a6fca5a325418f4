//! A defence being written, saved beside the search's checkpoint now and then and when
//! the run stops, so that the next run goes on from it: a defence through a guide's
//! quiet endings gathers tens of millions of positions over hours, more than one run
//! (or one session) gives it.
//!
//! Layout (little-endian): `VATODEF1`, the format version (u32); the question (16
//! bytes): the board, the chain rule, the owner (the defender), the guide's stones, the
//! proof tables' stones, whether the store was read (u8 each), two zero bytes, the root's
//! key (u64); then the defence: the nodes (a count, then for each its White and Black
//! stones and chosen turn as u64, its first link as u32 and its flags as u8), the links
//! (a count, then dependant and next as u32), the rankings (a count, then for each the
//! position, the choice and the number of candidates as u32, and each candidate's turn
//! as u64 and class as u8), the positions to gather and those dying (a count, then u32
//! each), the fresh searches' four counters (u64), whether the guide was contradicted
//! (u8); last, the XXH3-64 checksum of everything before it (u64).
//!
//! The saved defence need not match the table it is resumed beside: a position is kept
//! only while nothing shows it lost, and the finished defence is followed move by move
//! before it is used, so it is sound whatever the table says. It must be the same
//! question over the same settled positions, which the header pins down.

use super::{Candidate, Class, Defence, FreshSearches, Link, NO_LINK, Node, Ranking};
use crate::rules::bitboard::Bitboard;
use crate::rules::board::Board;
use crate::rules::position::{Color, Position};
use crate::rules::{ChainRule, TurnRules};
use crate::safe_file::{Checksum, checksum, write_atomically_with};
use crate::solve::certificate::unpack_turn;
use crate::solve::checkpoint::defence_path;
use crate::solve::codes::{board_code, chain_code, color_code};
use anyhow::{Context, Result, bail};
use memmap2::Mmap;
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const MAGIC: &[u8; 8] = b"VATODEF1";
const VERSION: u32 = 1;
const QUESTION_BYTES: usize = 16;
const HEADER_BYTES: usize = 12 + QUESTION_BYTES;

/// The question a saved defence answers: a defence saved for another one is not used.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(in crate::solve) struct Question {
    /// The root's key.
    pub root: u64,
    pub board: Board,
    pub chain_rule: ChainRule,
    /// The side whose defence it is.
    pub owner: Color,
    /// The most stones of the guide's tables (0: none): which positions never die.
    pub guide_stones: u8,
    /// The most stones of the proof's tables (0: none): which positions are settled.
    pub table_stones: u8,
    /// Whether the store was read: its results are settled positions too.
    pub with_store: bool,
}

impl Question {
    fn bytes(&self) -> [u8; QUESTION_BYTES] {
        let mut bytes = [0; QUESTION_BYTES];
        bytes[0] = board_code(self.board);
        bytes[1] = chain_code(self.chain_rule);
        bytes[2] = color_code(self.owner);
        bytes[3] = self.guide_stones;
        bytes[4] = self.table_stones;
        bytes[5] = u8::from(self.with_store);
        bytes[8..].copy_from_slice(&self.root.to_le_bytes());
        bytes
    }
}

/// Where a defence is saved, how often, and for which question.
pub(in crate::solve) struct DefenceFile {
    path: PathBuf,
    every: Duration,
    question: Question,
    last_saved: Instant,
}

impl DefenceFile {
    /// The defence of `question`, saved beside the checkpoint `checkpoint` every `every`.
    pub(in crate::solve) fn new(checkpoint: &Path, every: Duration, question: Question) -> Self {
        DefenceFile {
            path: defence_path(checkpoint),
            every,
            question,
            last_saved: Instant::now(),
        }
    }

    /// Whether it is time to save again.
    pub(super) fn due(&self) -> bool {
        self.last_saved.elapsed() >= self.every
    }

    /// The defence saved for this question, if there is one. A file of another question,
    /// or a damaged one, is reported in one line and left for the next save to replace.
    pub(super) fn resume(&self, turn_rules: TurnRules) -> Option<Defence> {
        match self.load(turn_rules) {
            Ok(Some(defence)) => {
                tracing::info!(
                    "going on with the defence saved in {}: {} positions",
                    self.path.display(),
                    defence.nodes.len()
                );
                Some(defence)
            }
            Ok(None) => None,
            Err(e) => {
                tracing::warn!("{e:#}; the defence starts afresh");
                None
            }
        }
    }

    fn load(&self, turn_rules: TurnRules) -> Result<Option<Defence>> {
        let name = self.path.display();
        let file = match std::fs::File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot read {name}")),
        };
        // Mapped rather than read: a defence of 90 million positions is a file of 6 GB,
        // and read whole beside the defence it describes it doubled the peak memory of a
        // resumed run. The pages are the file's, given back under pressure.
        // SAFETY: Vato replaces a saved defence only by renaming a new file over it, so
        // the mapped file does not change while it is read; a file changed by another
        // program is caught by the checksum below, and every read is bounds-checked.
        let bytes = unsafe { Mmap::map(&file) }.with_context(|| format!("cannot read {name}"))?;
        if bytes.len() < HEADER_BYTES + 8 || &bytes[..8] != MAGIC {
            bail!("{name} is not a saved defence");
        }
        let (contents, sum) = bytes.split_at(bytes.len() - 8);
        if checksum(contents) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
            bail!("{name} is damaged: its checksum does not match");
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version != VERSION {
            bail!("{name}: saved defence format {version}, this Vato reads {VERSION}");
        }
        if contents[12..HEADER_BYTES] != self.question.bytes() {
            bail!("{name} is the defence of another question, side, rules or tables");
        }
        let mut reader = Reader {
            bytes: &contents[HEADER_BYTES..],
        };
        let defence = decode(&mut reader, &self.question, turn_rules)
            .with_context(|| format!("{name} is damaged"))?;
        if !reader.bytes.is_empty() {
            bail!("{name} is damaged: bytes after the defence");
        }
        Ok(Some(defence))
    }

    /// Saves `defence`; a failure is reported and the writer goes on.
    pub(super) fn save(&mut self, defence: &Defence) {
        let started = Instant::now();
        match self.write(defence) {
            Ok(()) => tracing::debug!(
                "defence saved in {} ({} positions, {:.1} s)",
                self.path.display(),
                defence.nodes.len(),
                started.elapsed().as_secs_f64()
            ),
            Err(e) => tracing::warn!("{e:#}"),
        }
        self.last_saved = Instant::now();
    }

    fn write(&self, defence: &Defence) -> Result<()> {
        write_atomically_with(&self.path, |out| {
            let mut writer = Writer {
                out,
                sum: Checksum::default(),
            };
            writer.put(MAGIC)?;
            writer.put(&VERSION.to_le_bytes())?;
            writer.put(&self.question.bytes())?;
            encode(&mut writer, defence)?;
            let sum = writer.sum.finish();
            Ok(writer.out.write_all(&sum.to_le_bytes())?)
        })
    }

    /// Removes the saved defence: the writer has finished with this question.
    pub(super) fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Bytes written and added to the checksum.
struct Writer<'a> {
    out: &'a mut BufWriter<std::fs::File>,
    sum: Checksum,
}

impl Writer<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.sum.update(bytes);
        Ok(self.out.write_all(bytes)?)
    }

    fn u64(&mut self, value: u64) -> Result<()> {
        self.put(&value.to_le_bytes())
    }

    fn u32(&mut self, value: u32) -> Result<()> {
        self.put(&value.to_le_bytes())
    }

    fn count(&mut self, count: usize) -> Result<()> {
        self.u64(count as u64)
    }
}

/// Bytes read from the front.
struct Reader<'b> {
    bytes: &'b [u8],
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        if self.bytes.len() < N {
            bail!("it ends too soon");
        }
        let (head, rest) = self.bytes.split_at(N);
        self.bytes = rest;
        Ok(head.try_into().expect("N bytes"))
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take()?))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take()?))
    }

    /// A count of items of at least `item_bytes` each, no more than the bytes left hold.
    fn count(&mut self, item_bytes: usize) -> Result<usize> {
        let count = self.u64()?;
        if count > (self.bytes.len() / item_bytes) as u64 {
            bail!("a count larger than the file");
        }
        Ok(count as usize)
    }

    /// An index below `len`.
    fn index(&mut self, len: usize) -> Result<u32> {
        let index = self.u32()?;
        if index as usize >= len {
            bail!("an index out of range");
        }
        Ok(index)
    }

    /// An index below `len`, or [`NO_LINK`].
    fn link(&mut self, len: usize) -> Result<u32> {
        let link = self.u32()?;
        if link != NO_LINK && link as usize >= len {
            bail!("a link out of range");
        }
        Ok(link)
    }
}

const NODE_BYTES: usize = 29;
const LINK_BYTES: usize = 8;
const CANDIDATE_BYTES: usize = 9;

fn class_code(class: Class) -> u8 {
    match class {
        Class::Safe => 0,
        Class::Open { guided: false } => 1,
        Class::Open { guided: true } => 2,
    }
}

fn encode(writer: &mut Writer<'_>, defence: &Defence) -> Result<()> {
    writer.count(defence.nodes.len())?;
    for node in &defence.nodes {
        writer.u64(node.stones[0].bits())?;
        writer.u64(node.stones[1].bits())?;
        writer.u64(node.chosen.key())?;
        writer.u32(node.dependants)?;
        writer.put(&[node.flags])?;
    }
    writer.count(defence.links.len())?;
    for link in &defence.links {
        writer.u32(link.dependant)?;
        writer.u32(link.next)?;
    }
    writer.count(defence.rankings.len())?;
    // A candidate is saved as its turn, so that a file does not depend on the order the
    // move generator lists turns in.
    let mut turns = Vec::new();
    for (&parent, ranking) in &defence.rankings {
        defence
            .turn_rules
            .generate(&defence.position(parent), &mut turns);
        writer.u32(parent)?;
        writer.u32(ranking.choice as u32)?;
        writer.u32(ranking.candidates.len() as u32)?;
        for candidate in &ranking.candidates {
            writer.u64(candidate.turn(&turns).key())?;
            writer.put(&[class_code(candidate.class)])?;
        }
    }
    for list in [&defence.to_gather, &defence.dying] {
        writer.count(list.len())?;
        for &index in list {
            writer.u32(index)?;
        }
    }
    let fresh = &defence.fresh;
    for counter in [fresh.searches, fresh.nodes, fresh.lost, fresh.undecided] {
        writer.u64(counter)?;
    }
    writer.put(&[u8::from(defence.contradicted)])
}

fn decode(reader: &mut Reader<'_>, question: &Question, turn_rules: TurnRules) -> Result<Defence> {
    let mut defence = Defence::new(question.owner, question.board, turn_rules);
    let count = reader.count(NODE_BYTES)?;
    defence.nodes.reserve_exact(count);
    let mut first_links = Vec::with_capacity(count);
    for index in 0..count {
        let white = Bitboard::from_bits(reader.u64()?);
        let black = Bitboard::from_bits(reader.u64()?);
        let Some(chosen) = unpack_turn(reader.u64()?) else {
            bail!("a turn that is not one");
        };
        first_links.push(reader.u32()?);
        let flags = reader.u8()?;
        let side = if flags & super::BLACK_TO_MOVE != 0 {
            Color::Black
        } else {
            Color::White
        };
        let position = Position::new_on(question.board, white, black, side, 0, 1)
            .map_err(|e| anyhow::anyhow!("a position that is not one: {e}"))?;
        if defence.index.get_or_insert(position.key(), index as u32) != index as u32 {
            bail!("a position saved twice");
        }
        defence.nodes.push(Node {
            stones: [white, black],
            chosen,
            dependants: NO_LINK,
            flags,
        });
    }
    let links = reader.count(LINK_BYTES)?;
    defence.links.reserve_exact(links);
    for _ in 0..links {
        let dependant = reader.index(count)?;
        let next = reader.link(links)?;
        defence.links.push(Link { dependant, next });
    }
    for (node, first) in defence.nodes.iter_mut().zip(first_links) {
        if first != NO_LINK && first as usize >= links {
            bail!("a link out of range");
        }
        node.dependants = first;
    }
    let rankings = reader.count(12)?;
    defence.rankings = HashMap::with_capacity(rankings);
    let mut turns = Vec::new();
    for _ in 0..rankings {
        let parent = reader.index(count)?;
        let choice = reader.u32()? as usize;
        let len = reader.u32()? as usize;
        if choice >= len || len > reader.bytes.len() / CANDIDATE_BYTES {
            bail!("a ranking out of range");
        }
        turn_rules.generate(&defence.position(parent), &mut turns);
        let mut candidates = Vec::with_capacity(len);
        for _ in 0..len {
            let Some(turn) = unpack_turn(reader.u64()?) else {
                bail!("a turn that is not one");
            };
            let Some(at) = turns.iter().position(|&legal| legal == turn) else {
                bail!("a candidate that is not a turn of its position");
            };
            let class = match reader.u8()? {
                0 => Class::Safe,
                1 => Class::Open { guided: false },
                2 => Class::Open { guided: true },
                _ => bail!("an unknown class"),
            };
            candidates.push(Candidate::new(at, class));
        }
        defence.ranked += len;
        let ranking = Ranking {
            candidates: candidates.into_boxed_slice(),
            choice,
        };
        if defence.rankings.insert(parent, ranking).is_some() {
            bail!("a position ranked twice");
        }
    }
    for list in [&mut defence.to_gather, &mut defence.dying] {
        let len = reader.count(4)?;
        list.reserve_exact(len);
        for _ in 0..len {
            list.push(reader.index(count)?);
        }
    }
    defence.fresh = FreshSearches {
        searches: reader.u64()?,
        nodes: reader.u64()?,
        lost: reader.u64()?,
        undecided: reader.u64()?,
    };
    defence.contradicted = reader.u8()? != 0;
    Ok(defence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use crate::rules::fen::parse_position_on;
    use crate::safe_file::partial_path;

    /// A small defence with every part filled: positions of both sides to move, a link,
    /// a ranking, positions to gather and dying, counters.
    fn a_defence() -> (Defence, Question) {
        let rules = Rules::default();
        let root = parse_position_on(Board::Tsivy, "9/B8/9/6W1W/9 w").unwrap();
        let owner = Color::White;
        let mut defence = Defence::new(owner, Board::Tsivy, rules.turn_rules());
        let parent = defence.register(root, false);
        let mut turns = Vec::new();
        rules.turn_rules().generate(&root, &mut turns);
        assert!(turns.len() >= 3);
        let candidates: Vec<Candidate> = turns
            .iter()
            .enumerate()
            .map(|(at, _)| {
                let class = if at == 0 {
                    Class::Safe
                } else {
                    Class::Open { guided: false }
                };
                Candidate::new(at, class)
            })
            .collect();
        // The safe first candidate passed over: the second is chosen, registered with a
        // link back, and its ranking kept.
        let ranking = Ranking {
            candidates: candidates.into_boxed_slice(),
            choice: 1,
        };
        defence.choose_from(parent, &turns, ranking);
        let child = root.play(turns[1]);
        let mut replies = Vec::new();
        rules.turn_rules().generate(&child, &mut replies);
        defence.register(child.play(replies[0]), true);
        defence.dying.push(2);
        defence.contradicted = true;
        defence.fresh = FreshSearches {
            searches: 3,
            nodes: 14,
            lost: 1,
            undecided: 2,
        };
        let question = Question {
            root: root.key(),
            board: Board::Tsivy,
            chain_rule: rules.chain_rule,
            owner,
            guide_stones: 8,
            table_stones: 7,
            with_store: true,
        };
        (defence, question)
    }

    /// Everything a defence holds, comparable.
    #[allow(clippy::type_complexity)]
    fn contents(
        defence: &Defence,
    ) -> (
        Vec<(u64, u64, u64, u32, u8, Option<u32>)>,
        Vec<(u32, u32)>,
        Vec<(u32, usize, Vec<(u64, u8)>)>,
        [Vec<u32>; 2],
        [u64; 5],
    ) {
        let nodes = defence
            .nodes
            .iter()
            .enumerate()
            .map(|(index, node)| {
                let key = defence.position(index as u32).key();
                let [white, black] = node.stones;
                let found = defence.index.get(key);
                (
                    white.bits(),
                    black.bits(),
                    node.chosen.key(),
                    node.dependants,
                    node.flags,
                    found,
                )
            })
            .collect();
        let links = defence
            .links
            .iter()
            .map(|l| (l.dependant, l.next))
            .collect();
        let mut rankings: Vec<_> = defence
            .rankings
            .iter()
            .map(|(&parent, ranking)| {
                let mut turns = Vec::new();
                defence
                    .turn_rules
                    .generate(&defence.position(parent), &mut turns);
                let candidates = ranking
                    .candidates
                    .iter()
                    .map(|c| (c.turn(&turns).key(), class_code(c.class)))
                    .collect();
                (parent, ranking.choice, candidates)
            })
            .collect();
        rankings.sort_unstable_by_key(|&(parent, _, _)| parent);
        let fresh = &defence.fresh;
        let counters = [
            fresh.searches,
            fresh.nodes,
            fresh.lost,
            fresh.undecided,
            u64::from(defence.contradicted),
        ];
        let lists = [defence.to_gather.clone(), defence.dying.clone()];
        (nodes, links, rankings, lists, counters)
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("vato-defence-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("question.checkpoint")
    }

    #[test]
    fn a_saved_defence_comes_back_whole() {
        let (defence, question) = a_defence();
        assert_eq!(defence.nodes.len(), 3);
        assert_eq!(defence.links.len(), 1);
        assert_eq!(defence.rankings.len(), 1);
        let checkpoint = scratch("whole");
        let mut file = DefenceFile::new(&checkpoint, Duration::ZERO, question);
        assert!(file.due());
        assert!(
            file.resume(TurnRules::default()).is_none(),
            "nothing saved yet"
        );
        file.save(&defence);
        assert!(defence_path(&checkpoint).exists());
        assert!(!partial_path(&defence_path(&checkpoint)).exists());
        let back = file
            .resume(TurnRules::default())
            .expect("the saved defence");
        assert_eq!(contents(&back), contents(&defence));
        assert_eq!((back.owner, back.board), (defence.owner, defence.board));
        file.remove();
        assert!(!defence_path(&checkpoint).exists());
    }

    #[test]
    fn a_defence_of_another_question_or_damaged_is_refused() {
        let (defence, question) = a_defence();
        let checkpoint = scratch("refused");
        DefenceFile::new(&checkpoint, Duration::ZERO, question).save(&defence);
        let others = [
            Question {
                owner: Color::Black,
                ..question
            },
            Question {
                table_stones: 6,
                ..question
            },
            Question {
                with_store: false,
                ..question
            },
            Question {
                root: question.root ^ 1,
                ..question
            },
        ];
        for other in others {
            let file = DefenceFile::new(&checkpoint, Duration::ZERO, other);
            let error = file
                .load(TurnRules::default())
                .err()
                .expect("refused")
                .to_string();
            assert!(error.contains("another question"), "{error}");
            assert!(file.resume(TurnRules::default()).is_none());
        }
        let path = defence_path(&checkpoint);
        let whole = std::fs::read(&path).unwrap();
        let file = DefenceFile::new(&checkpoint, Duration::ZERO, question);
        let mut damaged = whole.clone();
        damaged[whole.len() / 2] ^= 0x10;
        std::fs::write(&path, &damaged).unwrap();
        let error = format!(
            "{:#}",
            file.load(TurnRules::default()).err().expect("refused")
        );
        assert!(error.contains("checksum"), "{error}");
        std::fs::write(&path, &whole[..whole.len() - 20]).unwrap();
        assert!(file.load(TurnRules::default()).is_err());
        std::fs::write(&path, b"VATOPNS1 a table, not a defence").unwrap();
        let error = format!(
            "{:#}",
            file.load(TurnRules::default()).err().expect("refused")
        );
        assert!(error.contains("not a saved defence"), "{error}");
        assert!(file.resume(TurnRules::default()).is_none());
    }
}
