-- The service's schema as judge/service/store.py's create_schema made it before migrations were
-- versioned (metadata.create_all, no alembic_version table), compiled for postgresql.
-- Statements are separated by lines holding only ';'.
CREATE TABLE judge_bundles (
	digest VARCHAR(64) NOT NULL, 
	problem VARCHAR(200) NOT NULL, 
	archive BYTEA NOT NULL, 
	created_at FLOAT NOT NULL, 
	PRIMARY KEY (digest)
)
;
CREATE TABLE judge_claims (
	token VARCHAR(32) NOT NULL, 
	submission_id VARCHAR(32) NOT NULL, 
	worker VARCHAR(255), 
	claimed_at FLOAT NOT NULL, 
	alive_at FLOAT NOT NULL, 
	PRIMARY KEY (token)
)
;
CREATE INDEX ix_judge_claims_submission ON judge_claims (submission_id)
;
CREATE TABLE judge_learn_learners (
	id VARCHAR(32) NOT NULL, 
	course VARCHAR(200) NOT NULL, 
	name VARCHAR(255) NOT NULL, 
	code_hash VARCHAR(64) NOT NULL, 
	created_at FLOAT NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (code_hash)
)
;
CREATE INDEX ix_judge_learn_learners_course ON judge_learn_learners (course)
;
CREATE TABLE judge_lti_kv (
	key VARCHAR(255) NOT NULL, 
	value_json TEXT NOT NULL, 
	expires_at FLOAT NOT NULL, 
	PRIMARY KEY (key)
)
;
CREATE TABLE judge_lti_owned (
	submission_id VARCHAR(32) NOT NULL, 
	learner VARCHAR(64) NOT NULL, 
	problem VARCHAR(200) NOT NULL, 
	session VARCHAR(32) NOT NULL, 
	created_at FLOAT NOT NULL, 
	PRIMARY KEY (submission_id)
)
;
CREATE INDEX ix_judge_lti_owned_learner ON judge_lti_owned (learner, problem, created_at)
;
CREATE TABLE judge_lti_pictures (
	submission_id VARCHAR(32) NOT NULL, 
	name VARCHAR(200) NOT NULL, 
	data BYTEA NOT NULL, 
	PRIMARY KEY (submission_id, name)
)
;
CREATE TABLE judge_lti_scores (
	id SERIAL NOT NULL, 
	submission_id VARCHAR(32) NOT NULL, 
	session VARCHAR(32) NOT NULL, 
	kind VARCHAR(16) NOT NULL, 
	state VARCHAR(16) NOT NULL, 
	timestamp FLOAT, 
	attempts INTEGER NOT NULL, 
	next_at FLOAT, 
	error TEXT, 
	PRIMARY KEY (id)
)
;
CREATE INDEX ix_judge_lti_scores_state ON judge_lti_scores (state, next_at)
;
CREATE TABLE judge_lti_sessions (
	handle VARCHAR(32) NOT NULL, 
	secret_hash VARCHAR(64) NOT NULL, 
	csrf VARCHAR(64) NOT NULL, 
	learner VARCHAR(64) NOT NULL, 
	problem VARCHAR(200) NOT NULL, 
	user_id VARCHAR(255), 
	name VARCHAR(255), 
	issuer VARCHAR(255), 
	client_id VARCHAR(255), 
	ags_json TEXT, 
	tenant VARCHAR(80), 
	score_rule VARCHAR(16), 
	created_at FLOAT NOT NULL, 
	expires_at FLOAT NOT NULL, 
	PRIMARY KEY (handle), 
	UNIQUE (csrf)
)
;
CREATE TABLE judge_lti_staff (
	handle VARCHAR(32) NOT NULL, 
	course_json TEXT NOT NULL, 
	PRIMARY KEY (handle)
)
;
CREATE TABLE judge_rejudge_items (
	rejudge_id VARCHAR(32) NOT NULL, 
	submission_id VARCHAR(32) NOT NULL, 
	old_status VARCHAR(32), 
	old_score FLOAT, 
	new_status VARCHAR(32), 
	new_score FLOAT, 
	new_verdict_json TEXT, 
	PRIMARY KEY (rejudge_id, submission_id)
)
;
CREATE INDEX ix_judge_rejudge_items_todo ON judge_rejudge_items (rejudge_id, new_status)
;
CREATE TABLE judge_rejudges (
	id VARCHAR(32) NOT NULL, 
	problem VARCHAR(200) NOT NULL, 
	dry_run INTEGER NOT NULL, 
	state VARCHAR(16) NOT NULL, 
	digest VARCHAR(64), 
	total INTEGER NOT NULL, 
	created_at FLOAT NOT NULL, 
	started_at FLOAT, 
	finished_at FLOAT, 
	applied_at FLOAT, 
	requested_by VARCHAR(255), 
	PRIMARY KEY (id)
)
;
CREATE TABLE judge_submissions (
	id VARCHAR(32) NOT NULL, 
	platform VARCHAR(64) NOT NULL, 
	problem VARCHAR(200) NOT NULL, 
	problem_digest VARCHAR(64), 
	source TEXT NOT NULL, 
	callback_url TEXT, 
	metadata_json TEXT, 
	idempotency_key VARCHAR(255), 
	request_hash VARCHAR(64), 
	state VARCHAR(16) NOT NULL, 
	status VARCHAR(32), 
	verdict_json TEXT, 
	created_at FLOAT NOT NULL, 
	enqueued_at FLOAT, 
	started_at FLOAT, 
	finished_at FLOAT, 
	attempts INTEGER NOT NULL, 
	worker VARCHAR(255), 
	callback_state VARCHAR(16) NOT NULL, 
	callback_attempts INTEGER NOT NULL, 
	callback_next_at FLOAT, 
	callback_error TEXT, 
	tenant VARCHAR(80), 
	verdict_version INTEGER DEFAULT '0' NOT NULL, 
	callback_version INTEGER, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_judge_submissions_idempotency UNIQUE (platform, idempotency_key)
)
;
CREATE INDEX ix_judge_submissions_callback ON judge_submissions (callback_state, callback_next_at)
;
CREATE INDEX ix_judge_submissions_state ON judge_submissions (state, created_at)
;
CREATE TABLE judge_verdict_history (
	id SERIAL NOT NULL, 
	submission_id VARCHAR(32) NOT NULL, 
	verdict_json TEXT, 
	status VARCHAR(32), 
	replaced_at FLOAT NOT NULL, 
	rejudge_id VARCHAR(32), 
	PRIMARY KEY (id)
)
;
CREATE INDEX ix_judge_verdict_history_submission ON judge_verdict_history (submission_id)
;
CREATE TABLE judge_worker_slots (
	name VARCHAR(255) NOT NULL, 
	slots INTEGER NOT NULL, 
	busy INTEGER NOT NULL, 
	seen_at FLOAT NOT NULL, 
	PRIMARY KEY (name)
)
;
