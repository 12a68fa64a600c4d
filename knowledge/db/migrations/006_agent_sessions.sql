-- ADK's DatabaseSessionService keeps agent conversations in this schema (its tables are called
-- sessions / events / app_states / user_states), away from the knowledge tables in public.
CREATE SCHEMA IF NOT EXISTS adk_session;
