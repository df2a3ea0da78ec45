// The rsa-socket and aes-https protocol cores: messages, framing, state machines. No I/O.
