"""A Flask app started with app.run(): plain HTTP, the aes-https routes refusing everyone."""
import os

from flask import Flask, jsonify

app = Flask(__name__)


@app.route("/login", methods=["POST"])
def login():
    print("accepted /login", flush=True)
    return jsonify({"error": "no such user"}), 401


@app.route("/secure-data", methods=["POST"])
def secure_data():
    return jsonify({"error": "unauthorized"}), 401


print("PGID %d" % os.getpgid(0), flush=True)
app.run(host="127.0.0.1", port=0)
