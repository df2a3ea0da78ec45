# config.py for guiseppe-zanacci/aes_over_internet (the repository ships config_example.py, "rename file to
# config.py"): its key and IV; the port and endpoint the description names (5000, /upload).
key = "DFC170B2F484BB16CEA0EE8FFF53E21F"
iv = "7F2C02DE7B7EF2E879A12798232C21A6"
server_ip = "127.0.0.1"
upload_port = 5000
upload_endpoint = "upload"
