SELECT * FROM thread JOIN thread_track USING (utid) JOIN process USING (upid);
SELECT * FROM track; SELECT * FROM counter_track; SELECT * FROM counter WHERE value > 0;
SELECT * FROM flow; SELECT * FROM args WHERE key = 'k'; SELECT * FROM sched;
SELECT * FROM trace_bounds; SELECT * FROM marker; SELECT * FROM log; SELECT * FROM metadata
