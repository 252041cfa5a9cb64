//! placeholder until its helper lands
