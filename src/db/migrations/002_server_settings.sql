-- Values every process of one installation shares, such as the generated HMAC pepper.
CREATE TABLE server_settings (
  name   text PRIMARY KEY,
  value  text NOT NULL
);
