//! zkslot_bp_oracle -- bellperson's proving assignment as zkslot's .bpa
//! (assign), shared by the oracle binary and the Filecoin synthesizer, and
//! the oracle's test circuits (circuits).
pub mod assign;
pub mod circuits;
