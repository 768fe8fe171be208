-- One database per service, owned by <name>_owner (runs the migrations);
-- the service itself connects as <name>_app, which owns no table and gets
-- its DML grants from the migrations. Development passwords only.
CREATE ROLE identity_owner LOGIN PASSWORD 'identity_owner';
CREATE ROLE identity_app LOGIN PASSWORD 'identity_app';
CREATE DATABASE identity OWNER identity_owner;
CREATE ROLE contacts_owner LOGIN PASSWORD 'contacts_owner';
CREATE ROLE contacts_app LOGIN PASSWORD 'contacts_app';
CREATE DATABASE contacts OWNER contacts_owner;
CREATE ROLE optin_owner LOGIN PASSWORD 'optin_owner';
CREATE ROLE optin_app LOGIN PASSWORD 'optin_app';
CREATE DATABASE optin OWNER optin_owner;
CREATE ROLE transactions_owner LOGIN PASSWORD 'transactions_owner';
CREATE ROLE transactions_app LOGIN PASSWORD 'transactions_app';
CREATE DATABASE transactions OWNER transactions_owner;
CREATE ROLE webhook_owner LOGIN PASSWORD 'webhook_owner';
CREATE ROLE webhook_app LOGIN PASSWORD 'webhook_app';
CREATE DATABASE webhook OWNER webhook_owner;
CREATE ROLE batch_owner LOGIN PASSWORD 'batch_owner';
CREATE ROLE batch_app LOGIN PASSWORD 'batch_app';
CREATE DATABASE batch OWNER batch_owner;
CREATE ROLE dashboard_owner LOGIN PASSWORD 'dashboard_owner';
CREATE ROLE dashboard_app LOGIN PASSWORD 'dashboard_app';
CREATE DATABASE dashboard OWNER dashboard_owner;
