//! The forward flow-analysis framework over the Tame IR: joins at if, fixed points with widening at loops, break/continue/return, nonviable code after errors.
