-- Issue 27: a claim takes the least recently attempted due repository.
-- Without an index in that order, every claim read and sorted every row of
-- `leases`, so a round of N repositories cost N² row visits. With this
-- index, a claim walks the due rows from the oldest and stops at the first
-- free one it may collect: the leased rows it skips are at most one per
-- worker, whatever the number of repositories. A never attempted
-- repository sorts first (as `NULLS FIRST` did), and "due" is a range on
-- the same expression, so a claim that finds nothing due reads nothing.
CREATE INDEX leases_due ON leases ((coalesce(last_attempt, '-infinity'::timestamptz)), repo);
