//! Unit tests for the MATLAB front end: one group per feature of the brief.
